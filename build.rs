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
    link_at_a_fixed_address();
    // The manifest directory of this build, read when the script runs (not `env!`, which is
    // fixed when the script is compiled: a target directory shared by two checkouts would
    // embed the other one's templates).
    let manifest_dir = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest_dir).join("templates");
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
        // Named from the crate being compiled, so a stale generated file cannot point
        // into another checkout.
        writeln!(
            code,
            "    ({rel:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/templates/\", {rel:?}))),"
        )
        .expect("write to string");
    }
    code.push_str("];\n");
    let out =
        PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR")).join("templates.rs");
    std::fs::write(out, code).expect("write templates.rs");
}

/// Link `plugins` as a position-dependent executable on x86_64 Linux (glibc): its image is
/// loaded where the linker put it, so the dynamic loader has no relocations to apply at start
/// (a position-independent build has about 31,000, which write 120 pages of `.data.rel.ro`
/// before `main`). That is a fifth of the CPU time of `plugins --version` and 0.2 to 0.3 ms of
/// every one-plugin `validate` (docs/PERFORMANCE.md). Shared libraries, the heap and the stack
/// are still placed at random; the executable's own code and data are not. Other targets
/// (musl's static build, macOS, Windows, arm64) keep their defaults.
fn link_at_a_fixed_address() {
    let var = |k: &str| std::env::var(k).unwrap_or_default();
    if var("CARGO_CFG_TARGET_OS") == "linux"
        && var("CARGO_CFG_TARGET_ENV") == "gnu"
        && var("CARGO_CFG_TARGET_ARCH") == "x86_64"
    {
        println!("cargo:rustc-link-arg-bin=plugins=-no-pie");
    }
}
