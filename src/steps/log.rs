//! A build's log file, capped, and the tail of a step's output shown when it fails.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::StepError;

/// The most build output kept in the log file per install.
pub const LOG_CAP: usize = 1024 * 1024;
/// The most recent output kept in memory for the tail shown on failure.
const TAIL_CAP: usize = 64 * 1024;
/// Lines and line length of the tail shown on failure.
const TAIL_LINES: usize = 20;
const TAIL_LINE_CHARS: usize = 300;

/// A build log: truncated when an install starts, capped at [`LOG_CAP`] bytes
/// (what comes after is counted, and its tail kept), never read back whole.
pub struct Log {
    path: PathBuf,
    file: fs_err::File,
    pub(super) written: usize,
}

impl Log {
    /// Start the log for one install (an earlier install's log is replaced).
    pub fn create(path: &Path) -> Result<Log, StepError> {
        let log_err = |source| StepError::Log {
            path: path.to_path_buf(),
            source,
        };
        if let Some(parent) = path.parent() {
            fs_err::create_dir_all(parent).map_err(log_err)?;
        }
        let file = fs_err::File::create(path).map_err(log_err)?;
        Ok(Log {
            path: path.to_path_buf(),
            file,
            written: 0,
        })
    }

    /// Append within the cap; what does not fit is dropped.
    pub(super) fn write(&mut self, bytes: &[u8]) -> Result<(), StepError> {
        let room = LOG_CAP.saturating_sub(self.written);
        let take = bytes.len().min(room);
        self.append(&bytes[..take])?;
        self.written += take;
        Ok(())
    }

    /// Append past the cap (a bounded note: what was cut, and the tail).
    pub(super) fn append(&mut self, bytes: &[u8]) -> Result<(), StepError> {
        self.file.write_all(bytes).map_err(|source| StepError::Log {
            path: self.path.clone(),
            source,
        })
    }
}

/// One step's output as it arrives: the bytes for the log (until the cap),
/// the bytes past it (counted), and a bounded tail.
#[derive(Default)]
pub(super) struct Captured {
    pub(super) for_log: Vec<u8>,
    pub(super) omitted: u64,
    pub(super) tail: std::collections::VecDeque<u8>,
}

/// Read `pipe` until every writer is gone, keeping at most `log_room` bytes
/// for the log and [`TAIL_CAP`] bytes of tail; the receiver hears when it has.
pub(super) fn capture(
    mut pipe: std::io::PipeReader,
    log_room: usize,
) -> (
    std::sync::Arc<std::sync::Mutex<Captured>>,
    std::sync::mpsc::Receiver<()>,
) {
    let shared = std::sync::Arc::new(std::sync::Mutex::new(Captured::default()));
    let out = shared.clone();
    let (ended, heard) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 16 * 1024];
        while let Ok(n) = std::io::Read::read(&mut pipe, &mut buf) {
            if n == 0 {
                break;
            }
            let mut c = out.lock().expect("not poisoned");
            let room = log_room.saturating_sub(c.for_log.len());
            let keep = n.min(room);
            c.for_log.extend_from_slice(&buf[..keep]);
            c.omitted += (n - keep) as u64;
            c.tail.extend(&buf[..n]);
            let excess = c.tail.len().saturating_sub(TAIL_CAP);
            c.tail.drain(..excess);
        }
        let _ = ended.send(());
    });
    (shared, heard)
}

/// The last lines of a step's output, each cut to a readable length.
pub(super) fn tail_text(tail: &std::collections::VecDeque<u8>) -> String {
    let bytes: Vec<u8> = tail.iter().copied().collect();
    let text = String::from_utf8_lossy(&bytes);
    let lines: Vec<&str> = text.lines().collect();
    lines[lines.len().saturating_sub(TAIL_LINES)..]
        .iter()
        .map(|l| {
            if l.chars().count() > TAIL_LINE_CHARS {
                let cut: String = l.chars().take(TAIL_LINE_CHARS).collect();
                format!("{cut} [... line cut]")
            } else {
                (*l).to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}
