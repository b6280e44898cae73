//! Measuring a run: its peak memory (GNU time), and incompressible input for it.

use std::ffi::OsStr;
use std::path::Path;

use super::Plugins;

/// Peak resident memory of a run of `plugins`, in KiB, from GNU time.
pub(crate) fn peak_rss_kib(cmd: &mut Plugins) -> (i32, u64, String) {
    let report = tempfile::NamedTempFile::new().unwrap();
    let (code, stdout, stderr) = cmd
        .wrapped_in(
            "/usr/bin/time",
            [
                OsStr::new("-f"),
                "%M".as_ref(),
                "-o".as_ref(),
                report.path().as_os_str(),
            ],
        )
        .run()
        .parts();
    let kib = std::fs::read_to_string(report.path())
        .unwrap()
        .trim()
        .lines()
        .last()
        .unwrap()
        .parse()
        .unwrap();
    (code, kib, format!("{stdout}{stderr}"))
}

/// `mib` MiB of incompressible bytes: a file of one repeated byte deflates to almost
/// nothing, so a packed fetch of it measures nothing.
pub(crate) fn random_file(path: &Path, mib: u64) {
    use std::io::Read;
    let mut bytes = std::fs::File::open("/dev/urandom").unwrap().take(mib << 20);
    let mut out = std::fs::File::create(path).unwrap();
    std::io::copy(&mut bytes, &mut out).unwrap();
}
