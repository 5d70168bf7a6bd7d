//! The engine's layers, read off its sources: every import points down the table below (or stays
//! in its layer), and no file imports one that imports it back, directly or around a circle. The
//! app's files (`src-tauri/src`) are held to the second rule too.
//!
//! Imports are read with `syn`: `use` items and every path written out (`crate::x::Y`,
//! `super::Z`, `child::W`), in each file's non-test items. A path is taken to the file that
//! defines what it names: a module's file, or, when the name is a `use` in that module (a
//! re-export such as `pub use store::Store` in a `mod.rs`), the file the `use` names. So a
//! `mod.rs` that re-exports a child while the child reaches `super::` for something the `mod.rs`
//! defines is a circle, as it reads to a person.
//!
//! The same table is ARCHITECTURE.md's code map; a file in no layer fails the test.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use petgraph::algo::tarjan_scc;
use petgraph::graph::DiGraph;
use syn::visit::Visit;

/// The engine's layers, lowest first, each as path prefixes under `crates/arbor-core/src`. A
/// file may import its own layer's files and any lower layer's, never a higher one's.
const LAYERS: &[(&str, &[&str])] = &[
    // The words everything else is written in: interned ids, the report's types, findings and
    // their catalog, the transcript's part types.
    ("vocabulary", &["vocab/"]),
    // Bytes: files of an opened path, zstd, lines with numbers and offsets.
    ("bytes", &["bytes/"]),
    // One line's text: JSON strings (escape, strict and lenient unescape, special bytes),
    // timestamps, and the line shapes the formats parse into.
    ("line text", &["text/"]),
    // What the records of a log become: context (findings, strings), the session graph, turns,
    // usage and prices.
    ("records", &["records/"]),
    // One module per format behind one interface: detection, its line shape, its machine.
    ("formats", &["formats/"]),
    // The analysis value and the driver that makes it: plan, read-ahead, flow, route, live.
    ("analysis", &["analysis/"]),
    // What is made of an analysis: the report's parts and JSON writer, transcripts.
    ("outputs", &["outputs/"]),
    // A report kept for a viewer, answered a page at a time.
    ("views", &["view/"]),
    // The crate's front: `analyze_paths`, the sample log.
    ("front", &["lib.rs", "sample.rs"]),
];

#[test]
fn engine_imports_point_down_and_never_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let krate = Crate::read(&src, "lib.rs");
    let mut problems = Vec::new();
    if std::env::var_os("ARBOR_LAYERS_DUMP").is_some() {
        // The import graph, one edge a line, for a person redrawing the layers.
        for (from, to, why) in krate.edges() {
            println!("{from} -> {to}  ({why})");
        }
    }

    let layer_of = |file: &str| LAYERS.iter().position(|(_, prefixes)| prefixes.iter().any(|p| file.starts_with(p)));
    for file in krate.files.keys() {
        if layer_of(file).is_none() {
            problems.push(format!("{file} is in no layer: add it to LAYERS (and ARCHITECTURE.md's code map)"));
        }
    }
    for (from, to, why) in krate.edges() {
        if let (Some(a), Some(b)) = (layer_of(&from), layer_of(&to)) {
            if b > a {
                problems
                    .push(format!("{from} ({}) imports {to} ({}), a higher layer: `{why}`", LAYERS[a].0, LAYERS[b].0));
            }
        }
    }
    problems.extend(krate.circles());
    assert!(problems.is_empty(), "the engine's layers are broken:\n  {}", problems.join("\n  "));
}

#[test]
fn app_files_never_import_in_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../src-tauri/src");
    let krate = Crate::read(&src, "lib.rs");
    assert!(krate.files.len() > 3, "read {} files of {}", krate.files.len(), src.display());
    let circles = krate.circles();
    assert!(circles.is_empty(), "the app's files import in circles:\n  {}", circles.join("\n  "));
}

/// The checker itself: an upward import and a circle in a made-up crate are both seen.
#[test]
fn the_checker_sees_an_upward_import_and_a_circle() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    };
    write("lib.rs", "mod low; mod high; mod view;");
    write("low.rs", "pub struct A; pub fn f() { crate::high::g(); }");
    write("high.rs", "use crate::low::A; pub fn g() {}\n#[cfg(test)] mod tests { use crate::view::V; }");
    write("view/mod.rs", "mod store; pub use store::Store; pub struct V;");
    write("view/store.rs", "use super::V; pub struct Store;");
    let krate = Crate::read(dir.path(), "lib.rs");
    let edges: BTreeSet<(String, String)> = krate.edges().into_iter().map(|(a, b, _)| (a, b)).collect();
    let expect = [
        ("low.rs", "high.rs"),
        ("high.rs", "low.rs"),
        ("view/mod.rs", "view/store.rs"),
        ("view/store.rs", "view/mod.rs"),
    ];
    let expect: BTreeSet<(String, String)> = expect.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect();
    assert_eq!(edges, expect, "test-only imports are left out, re-exports and super:: are followed");
    assert_eq!(krate.circles().len(), 2, "{:?}", krate.circles());
}

/// A crate's files, each with the modules it holds (its own and any inline ones) and what it
/// imports.
struct Crate {
    /// Each file (path under the crate's source folder, `/`-separated) and what was read of it.
    files: BTreeMap<String, FileRead>,
    /// Each module path to its file.
    modules: HashMap<Vec<String>, String>,
    /// Each module path to the names its `use` items bind there: name → the path it stands for
    /// (absolute), and the globs it imports.
    bindings: HashMap<Vec<String>, Bindings>,
    /// Each module path to the names of the items it defines.
    defined: HashMap<Vec<String>, BTreeSet<String>>,
}

#[derive(Default)]
struct Bindings {
    names: HashMap<String, Vec<String>>,
    globs: Vec<Vec<String>>,
}

struct FileRead {
    /// The paths the file's items use, absolute (from the crate root).
    uses: Vec<Vec<String>>,
}

impl Crate {
    fn read(src: &Path, root: &str) -> Crate {
        let mut krate = Crate {
            files: BTreeMap::new(),
            modules: HashMap::new(),
            bindings: HashMap::new(),
            defined: HashMap::new(),
        };
        let mut files = Vec::new();
        walk(src, &mut files);
        for path in files {
            let rel = path.strip_prefix(src).unwrap().to_string_lossy().replace('\\', "/");
            let module = match module_of(&rel, root) {
                Some(m) => m,
                None => continue, // another crate root beside this one (main.rs of a bin)
            };
            let text = std::fs::read_to_string(&path).unwrap();
            let file = syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            let mut reader = Reader { krate: &mut krate, file: rel.clone(), uses: Vec::new() };
            reader.items(&module, &file.items);
            let uses = std::mem::take(&mut reader.uses);
            krate.modules.insert(module, rel.clone());
            krate.files.insert(rel, FileRead { uses });
        }
        krate
    }

    /// Every import between two files: (from, to, the path as written out).
    fn edges(&self) -> Vec<(String, String, String)> {
        let mut out = BTreeSet::new();
        for (from, read) in &self.files {
            for path in &read.uses {
                if let Some(to) = self.resolve(path, 0) {
                    if &to != from {
                        out.insert((from.clone(), to, path.join("::")));
                    }
                }
            }
        }
        // One edge a pair, with the first path that makes it.
        let mut seen = BTreeSet::new();
        out.into_iter().filter(|(a, b, _)| seen.insert((a.clone(), b.clone()))).collect()
    }

    /// The file an absolute path lands in: the file of the longest module prefix, or, when the
    /// next segment is a name a `use` binds in that module, where that `use` leads.
    fn resolve(&self, path: &[String], depth: usize) -> Option<String> {
        if depth > 16 {
            return None;
        }
        let mut n = path.len();
        while n > 0 && !self.modules.contains_key(&path[..n]) {
            n -= 1;
        }
        let module = &path[..n];
        let file = self.modules.get(module)?.clone();
        let Some(next) = path.get(n) else { return Some(file) };
        if self.defined.get(module).is_some_and(|d| d.contains(next)) {
            return Some(file);
        }
        if let Some(b) = self.bindings.get(module) {
            if let Some(target) = b.names.get(next) {
                if target.first().map(String::as_str) == Some("::extern") {
                    return Some(file);
                }
                let mut full = target.clone();
                full.extend_from_slice(&path[n + 1..]);
                return self.resolve(&full, depth + 1).or(Some(file));
            }
            for glob in &b.globs {
                let mut full = glob.clone();
                full.extend_from_slice(&path[n..]);
                let landed = self.resolve(&full, depth + 1);
                if landed.as_deref().is_some_and(|l| l != file) {
                    return landed;
                }
            }
        }
        Some(file)
    }

    /// Each circle of files (a strongly connected set of more than one), as a message.
    fn circles(&self) -> Vec<String> {
        let mut graph = DiGraph::<&str, ()>::new();
        let index: HashMap<&str, _> = self.files.keys().map(|f| (f.as_str(), graph.add_node(f.as_str()))).collect();
        let edges = self.edges();
        for (a, b, _) in &edges {
            graph.add_edge(index[a.as_str()], index[b.as_str()], ());
        }
        let mut out = Vec::new();
        for scc in tarjan_scc(&graph) {
            if scc.len() > 1 {
                let members: BTreeSet<&str> = scc.iter().map(|&i| graph[i]).collect();
                let within: Vec<String> = edges
                    .iter()
                    .filter(|(a, b, _)| members.contains(a.as_str()) && members.contains(b.as_str()))
                    .map(|(a, b, why)| format!("{a} -> {b} (`{why}`)"))
                    .collect();
                out.push(format!("circle of {} files: {}", members.len(), within.join(", ")));
            }
        }
        out
    }
}

/// The module path of a file: `a/b.rs` is `a::b`, `a/mod.rs` is `a`, the root is the empty path.
fn module_of(rel: &str, root: &str) -> Option<Vec<String>> {
    if rel == root {
        return Some(Vec::new());
    }
    if !rel.contains('/') && (rel == "main.rs" || rel == "lib.rs") {
        return None;
    }
    let stem = rel.strip_suffix(".rs")?;
    let mut parts: Vec<String> = stem.split('/').map(str::to_owned).collect();
    if parts.last().map(String::as_str) == Some("mod") {
        parts.pop();
    }
    Some(parts)
}

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            walk(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// Whether an item is left out of the build but for tests: `#[cfg(test)]`.
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Meta>().is_ok_and(|m| matches!(&m, syn::Meta::Path(p) if p.is_ident("test")))
    })
}

struct Reader<'k> {
    krate: &'k mut Crate,
    file: String,
    uses: Vec<Vec<String>>,
}

impl Reader<'_> {
    fn items(&mut self, module: &[String], items: &[syn::Item]) {
        let children: BTreeSet<String> = items
            .iter()
            .filter_map(|i| match i {
                syn::Item::Mod(m) if !test_only(&m.attrs) => Some(m.ident.to_string()),
                _ => None,
            })
            .collect();
        let mut defined = BTreeSet::new();
        for item in items {
            if test_only(item_attrs(item)) {
                continue;
            }
            if let Some(name) = item_name(item) {
                defined.insert(name);
            }
            match item {
                syn::Item::Use(u) => {
                    let mut found = Vec::new();
                    use_tree(&u.tree, Vec::new(), &mut found);
                    for (path, alias) in found {
                        let Some(abs) = absolute(module, &children, &path) else {
                            if let Some(alias) = alias {
                                // An outside crate's name: bound here, leading nowhere inside.
                                self.bind(module, alias, vec!["::extern".to_owned()]);
                            }
                            continue;
                        };
                        self.uses.push(abs.clone());
                        match alias {
                            Some(name) if name == "self" => {}
                            Some(name) => self.bind(module, name, abs),
                            None => self.krate.bindings.entry(module.to_vec()).or_default().globs.push(abs),
                        }
                    }
                }
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        let mut sub = module.to_vec();
                        sub.push(m.ident.to_string());
                        self.krate.modules.insert(sub.clone(), self.file.clone());
                        self.items(&sub, inner);
                    }
                }
                other => {
                    let mut paths = Paths { found: Vec::new() };
                    paths.visit_item(other);
                    for path in paths.found {
                        if let Some(abs) = absolute(module, &children, &path) {
                            self.uses.push(abs);
                        }
                    }
                }
            }
        }
        self.krate.defined.entry(module.to_vec()).or_default().extend(defined);
    }

    fn bind(&mut self, module: &[String], name: String, target: Vec<String>) {
        self.krate.bindings.entry(module.to_vec()).or_default().names.insert(name, target);
    }
}

/// Every path of a `use` tree, each with the name it binds (`None` for a glob).
fn use_tree(tree: &syn::UseTree, prefix: Vec<String>, out: &mut Vec<(Vec<String>, Option<String>)>) {
    match tree {
        syn::UseTree::Path(p) => {
            let mut next = prefix;
            next.push(p.ident.to_string());
            use_tree(&p.tree, next, out);
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            let mut path = prefix;
            if name == "self" {
                let bound = path.last().cloned();
                out.push((path, bound));
            } else {
                path.push(name.clone());
                out.push((path, Some(name)));
            }
        }
        syn::UseTree::Rename(r) => {
            let mut path = prefix;
            if r.ident != "self" {
                path.push(r.ident.to_string());
            }
            out.push((path, Some(r.rename.to_string())));
        }
        syn::UseTree::Glob(_) => out.push((prefix, None)),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                use_tree(t, prefix.clone(), out);
            }
        }
    }
}

/// A path made absolute from the module it is written in, or `None` when it leads outside the
/// crate (std, a dependency, a local name).
fn absolute(module: &[String], children: &BTreeSet<String>, path: &[String]) -> Option<Vec<String>> {
    let first = path.first()?;
    let mut out: Vec<String>;
    let rest: &[String];
    match first.as_str() {
        "crate" => {
            out = Vec::new();
            rest = &path[1..];
        }
        "self" => {
            out = module.to_vec();
            rest = &path[1..];
        }
        "super" => {
            out = module.to_vec();
            let mut i = 0;
            while path.get(i).map(String::as_str) == Some("super") {
                out.pop()?;
                i += 1;
            }
            rest = &path[i..];
        }
        name if children.contains(name) => {
            out = module.to_vec();
            rest = path;
        }
        _ => return None,
    }
    out.extend(rest.iter().cloned());
    Some(out)
}

fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item::*;
    match item {
        Const(i) => &i.attrs,
        Enum(i) => &i.attrs,
        ExternCrate(i) => &i.attrs,
        Fn(i) => &i.attrs,
        ForeignMod(i) => &i.attrs,
        Impl(i) => &i.attrs,
        Macro(i) => &i.attrs,
        Mod(i) => &i.attrs,
        Static(i) => &i.attrs,
        Struct(i) => &i.attrs,
        Trait(i) => &i.attrs,
        TraitAlias(i) => &i.attrs,
        Type(i) => &i.attrs,
        Union(i) => &i.attrs,
        Use(i) => &i.attrs,
        _ => &[],
    }
}

fn item_name(item: &syn::Item) -> Option<String> {
    use syn::Item::*;
    Some(
        match item {
            Const(i) => &i.ident,
            Enum(i) => &i.ident,
            Fn(i) => &i.sig.ident,
            Macro(i) => i.ident.as_ref()?,
            Mod(i) => &i.ident,
            Static(i) => &i.ident,
            Struct(i) => &i.ident,
            Trait(i) => &i.ident,
            TraitAlias(i) => &i.ident,
            Type(i) => &i.ident,
            Union(i) => &i.ident,
            _ => return None,
        }
        .to_string(),
    )
}

/// The paths written out in an item, outside its test-only parts.
struct Paths {
    found: Vec<Vec<String>>,
}

impl<'ast> Visit<'ast> for Paths {
    fn visit_path(&mut self, p: &'ast syn::Path) {
        if p.segments.len() > 1 {
            self.found.push(p.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        syn::visit::visit_path(self, p);
    }
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if !test_only(&m.attrs) {
            syn::visit::visit_item_mod(self, m);
        }
    }
    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        if !test_only(&f.attrs) {
            syn::visit::visit_item_fn(self, f);
        }
    }
    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        if !test_only(&f.attrs) {
            syn::visit::visit_impl_item_fn(self, f);
        }
    }
    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        // A `use` inside a function body: its paths count like any written out.
        let mut found = Vec::new();
        use_tree(&u.tree, Vec::new(), &mut found);
        self.found.extend(found.into_iter().map(|(p, _)| p).filter(|p| p.len() > 1));
    }
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        // A macro's tokens are read as expressions where they parse (`format!`, `vec!`, ...).
        if let Ok(args) = m.parse_body_with(syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated)
        {
            for e in &args {
                self.visit_expr(e);
            }
        }
        syn::visit::visit_macro(self, m);
    }
}
