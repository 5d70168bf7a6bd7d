//! What a root session is about, for the tree, the inspector and the replies' headings: the
//! title (or first prompt) its own file's format reads from the file's head (`Format::about`).
//! Only the view shows it. The report's `label` stays the SPEC's (a sub-agent's descriptor), and
//! a root has none, so without a title the tree would show a root by its id alone.
//!
//! A title is read when a row first asks for it, once per file, and only for a root alone in its
//! file: a file that holds many roots (a dsh-rpc log) says nothing about any one of them.

use std::sync::OnceLock;

use super::store::{At, Store, NONE};
use crate::formats::about_file;
use crate::intern::HashMap;

pub(crate) struct Titles {
    /// The roots that may have a title, by session index: the file it is read from.
    file_of: HashMap<u32, u32>,
    /// Per file: its title, once read.
    read: Vec<OnceLock<Option<String>>>,
}

impl Titles {
    /// `places[i]` is where session `i` begins.
    pub fn of(store: &Store, places: &[At]) -> Titles {
        let mut roots_in: HashMap<u32, u32> = HashMap::default();
        let mut candidates = Vec::new();
        for (i, s) in store.sessions.iter().enumerate() {
            let Some(at) = places.get(i).and_then(|a| a.get()) else { continue };
            if s.parent != NONE {
                continue;
            }
            *roots_in.entry(at.file).or_default() += 1;
            if s.label == NONE {
                candidates.push((i as u32, at.file));
            }
        }
        let file_of = candidates.into_iter().filter(|(_, f)| roots_in.get(f) == Some(&1)).collect();
        Titles { file_of, read: (0..store.paths.len()).map(|_| OnceLock::new()).collect() }
    }

    /// Session `i`'s title, when it is a root alone in a file whose head names one.
    pub fn get(&self, store: &Store, i: u32) -> Option<&str> {
        let file = *self.file_of.get(&i)? as usize;
        self.read.get(file)?.get_or_init(|| read(store, file)).as_deref()
    }
}

fn read(store: &Store, file: usize) -> Option<String> {
    let path = store.paths.get(file)?.as_ref()?;
    about_file(path, Some((*store.formats.get(file)?)?))
}
