//! Build script: the commit `arbor --version` names (see build/commit.rs).

#[path = "build/commit.rs"]
mod commit;

fn main() {
    commit::emit();
}
