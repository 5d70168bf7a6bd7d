//! The findings catalog (`arbor_core::explain`) as others read it: the TypeScript type the app
//! receives it as (`ui/src/lib/generated/explain.ts`), the catalog itself as the app bundles it
//! (`ui/src/lib/generated/catalog.ts`: the app explains a finding without asking the engine) and
//! the page made from it (`docs/findings.md`). All are committed; these tests fail when either
//! differs from what the catalog makes, and `ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-core
//! --test integration explain::` rewrites both (`cargo run -p arbor-cli -- explain --markdown >
//! docs/findings.md` rewrites the page).

use arbor_core::explain::{self, Explanation};
use std::path::{Path, PathBuf};
use ts_rs::{Config, TS};

use crate::ts_file;

const UPDATE: &str = "ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-core --test integration explain::";

const HEADER: &str = "// Generated from arbor-core's Rust types by ts-rs (crates/arbor-core/tests/explain.rs).\n\
     // Do not edit: change the Rust types, then ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-core --test integration explain::\n\n";

fn repo_file(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

#[test]
fn the_committed_typescript_explanation_type_is_generated_from_the_rust_one() {
    let want = ts_file::file_of(
        HEADER,
        "import type { Severity } from \"./report\";\n\n",
        &[Explanation::decl(&Config::new())],
    );
    ts_file::check(&repo_file("ui/src/lib/generated/explain.ts"), &want, UPDATE);
}

#[test]
fn the_committed_typescript_catalog_is_the_rust_one() {
    let mut want = String::from(
        "// Generated from arbor-core's findings catalog (crates/arbor-core/src/vocab/explain.rs) by\n\
         // crates/arbor-core/tests/explain.rs. Do not edit: change the catalog, then\n\
         // ARBOR_UPDATE_BINDINGS=1 cargo test -p arbor-core --test integration explain::\n\n\
         import type { Explanation } from \"./explain\";\n\n\
         /** Every finding code's explanation, by code. */\n\
         export const CATALOG: Record<string, Explanation> = {\n",
    );
    for e in explain::catalog() {
        want.push_str(&format!(
            "  {}: {},\n",
            serde_json::to_string(e.code).unwrap(),
            serde_json::to_string(&e).unwrap()
        ));
    }
    want.push_str("};\n");
    ts_file::check(&repo_file("ui/src/lib/generated/catalog.ts"), &want, UPDATE);
}

#[test]
fn the_committed_findings_page_is_made_from_the_catalog() {
    ts_file::check(&repo_file("docs/findings.md"), &explain::markdown(), UPDATE);
}

#[test]
fn an_explanation_serializes_with_the_field_names_the_typescript_type_has() {
    let e = explain::find("ancestry-cycle").unwrap();
    let v = serde_json::to_value(e).unwrap();
    assert_eq!(v["code"], "ancestry-cycle");
    assert_eq!(v["severity"], "error");
    assert_eq!(v["spec"], "2.1, 2.3");
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    let decl = Explanation::decl(&Config::new());
    for k in &keys {
        assert!(decl.contains(&format!("{k}: ")), "{k} missing from {decl}");
    }
    assert_eq!(keys.len(), 7);
}
