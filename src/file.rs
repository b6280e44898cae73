//! Reading files whose paths come from outside — an environment variable, a flag, a home
//! the user names (its lock, its config): opened without blocking (a FIFO cannot hang the
//! open), read only when a regular file, and never more than [`MAX_BYTES`].

use std::io::{self, Read};
use std::path::Path;

/// The most any such file may hold (the largest real one, a 200-plugin lock, is under
/// 200 KB).
pub const MAX_BYTES: u64 = 64 << 20;

/// `path`'s bytes, if it is a regular file of at most [`MAX_BYTES`]. A missing file is
/// `NotFound`, as `fs_err::read` says; a FIFO, device or directory is `InvalidInput`.
pub fn read(path: impl AsRef<Path>) -> io::Result<Vec<u8>> {
    read_at_most(path.as_ref(), MAX_BYTES)
}

/// [`read`] with another bound (`InvalidData` past it): a manifest's is smaller.
pub fn read_at_most(path: &Path, max: u64) -> io::Result<Vec<u8>> {
    let mut options = fs_err::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use fs_err::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path)?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let too_large = || {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("larger than {} MiB", max >> 20),
        )
    };
    if meta.len() > max {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0) + 1);
    // Read as many bytes as `fstat` said, and no further read to find the end: a file that
    // grows meanwhile is read as it was when asked. One `read` per file instead of two
    // (`validate -r` reads a manifest per root; docs/PERFORMANCE.md, issue 43). A size of 0
    // is not believed (procfs says 0 of what it holds), so that file is read to its end.
    let limit = if meta.len() > 0 { meta.len() } else { max + 1 };
    file.take(limit).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(too_large());
    }
    Ok(bytes)
}

/// [`read`], as UTF-8 text.
pub fn read_to_string(path: impl AsRef<Path>) -> io::Result<String> {
    String::from_utf8(read(path)?).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            "stream did not contain valid UTF-8",
        )
    })
}

/// What kind of file `meta` describes, as a message names it ("a FIFO").
pub fn kind(meta: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let t = meta.file_type();
    if t.is_file() {
        "regular file"
    } else if t.is_dir() {
        "directory"
    } else if t.is_symlink() {
        "symbolic link"
    } else if t.is_fifo() {
        "FIFO"
    } else if t.is_socket() {
        "socket"
    } else if t.is_char_device() {
        "character device"
    } else if t.is_block_device() {
        "block device"
    } else {
        "special file"
    }
}

/// What the operating system said about an I/O error. `fs_err` wraps every error in one that
/// restates the operation and the path ("failed to open file `<path>`: <reason>"); our errors
/// already carry their own context ("cannot read <path>"), so they show only the reason, as
/// they did before `fs_err`. fs_err keeps the original error private (without its
/// `expose_original_error` feature, which would drop the reason from every other message),
/// so the reason is the text after its fixed prefix; an OS reason never holds "`: ". Any
/// other error is shown as it is.
pub fn reason(error: &io::Error) -> std::borrow::Cow<'_, str> {
    let text = error.to_string();
    match (error.get_ref(), text.rfind("`: ")) {
        (Some(_), Some(at)) if text.starts_with("failed to ") => text[at + 3..].to_owned().into(),
        _ => text.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reason_is_the_os_words_without_fs_errs_restatement() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("missing");
        let e = read(&missing).unwrap_err();
        assert!(e.to_string().starts_with("failed to open file `"), "{e}");
        assert_eq!(
            reason(&e).to_string(),
            io::Error::from_raw_os_error(libc::ENOENT).to_string()
        );
        let plain = io::Error::new(io::ErrorKind::InvalidData, "larger than 1 MiB");
        assert_eq!(reason(&plain).to_string(), "larger than 1 MiB");
    }

    #[test]
    fn fifos_directories_and_missing_files_are_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: mkfifo(3) with a valid C string.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        assert_eq!(read(&fifo).unwrap_err().kind(), io::ErrorKind::InvalidInput);
        assert_eq!(
            read(dir.path()).unwrap_err().kind(),
            io::ErrorKind::InvalidInput
        );
        let missing = dir.path().join("missing");
        assert_eq!(read(&missing).unwrap_err().kind(), io::ErrorKind::NotFound);
        let file = dir.path().join("f");
        fs_err::write(&file, "x").unwrap();
        assert_eq!(read_to_string(&file).unwrap(), "x");
    }

    #[test]
    fn a_file_is_read_whole_by_its_size_and_past_a_size_of_zero() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        let text = "a line\n".repeat(10_000);
        fs_err::write(&file, &text).unwrap();
        assert_eq!(read_to_string(&file).unwrap(), text);
        assert_eq!(
            read_at_most(&file, text.len() as u64 - 1)
                .unwrap_err()
                .kind(),
            io::ErrorKind::InvalidData
        );
        // procfs says 0 bytes of a file that holds some.
        let status = Path::new("/proc/self/status");
        if status.exists() {
            assert_eq!(fs_err::metadata(status).unwrap().len(), 0);
            assert!(read_to_string(status).unwrap().contains("Name:"));
        }
    }

    #[test]
    fn devices_are_not_read() {
        let zero = Path::new("/dev/zero");
        if zero.exists() {
            assert_eq!(read(zero).unwrap_err().kind(), io::ErrorKind::InvalidInput);
        }
    }
}
