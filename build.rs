//! Embed every file under `templates/` in the binary, so `plugins new` works
//! from an installed binary with no checkout around.

// Cargo hands a build script its inputs in the environment (`OUT_DIR`); the rule that the
// environment is read only through `Context` (clippy.toml) is the program's.
#![allow(clippy::disallowed_methods)]

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("templates/ is readable")
        .map(|e| e.expect("entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            walk(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("templates");
    println!("cargo:rerun-if-changed=templates");
    let mut files = Vec::new();
    walk(&root, &mut files);
    let mut code = String::from(
        "/// Every template file: (path under templates/, contents).\npub(super) static FILES: &[(&str, &str)] = &[\n",
    );
    for f in &files {
        let rel = f
            .strip_prefix(&root)
            .expect("under templates/")
            .to_string_lossy()
            .replace('\\', "/");
        writeln!(
            code,
            "    ({rel:?}, include_str!({:?})),",
            f.to_string_lossy()
        )
        .expect("write to string");
    }
    code.push_str("];\n");
    let out =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("templates.rs");
    std::fs::write(out, code).expect("write templates.rs");
}
