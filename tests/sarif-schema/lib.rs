//! Empty: this package exists for its dependency (see Cargo.toml).
