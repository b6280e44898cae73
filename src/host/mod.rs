//! What makes an install take effect in the real hosts beyond the plugin tree and
//! the lock: where each host looks (protoAgent's instance paths, aoe's app dir) and
//! the host's own records (aoe's `config.toml` grant, enable/disable switches).
//! Domain code: no printing, no environment reads.

pub mod aoe;
pub mod detect;
pub mod protoagent;

use std::path::PathBuf;

use crate::lock::LockError;
use crate::manifest::Dialect;
use crate::store::Home;

/// What turning a plugin on or off did, in the file its host reads.
#[derive(Debug)]
pub enum Switch {
    /// The switch in `path` is set; `changed` is false when it already was.
    Set { path: PathBuf, changed: bool },
    /// `path` has no record of the plugin (AWorld's registry without its entry).
    NoRecord { path: PathBuf },
    /// The host's file is not rewritten (protoAgent's YAML would lose its comments): these
    /// lines go there by hand.
    ByHand { path: PathBuf, lines: String },
}

/// Turn `id` on or off where `dialect`'s host reads it: aoe's `config.toml`, AWorld's
/// `.manifest.json`, protoAgent's `langgraph-config.yaml` (by hand).
pub fn set_enabled(dialect: Dialect, home: &Home, id: &str, on: bool) -> Result<Switch, LockError> {
    Ok(match dialect {
        Dialect::Aoe => Switch::Set {
            changed: aoe::set_enabled(home, id, on)?,
            path: aoe::config_path(home),
        },
        Dialect::Aworld => {
            let path = home.aworld_registry();
            match crate::lock::registry::set_enabled(home, id, on)? {
                Some(changed) => Switch::Set { path, changed },
                None => Switch::NoRecord { path },
            }
        }
        Dialect::Protoagent => {
            let path = home.root.join("config").join("langgraph-config.yaml");
            match protoagent::switch_lines(&path, id, on) {
                None => Switch::Set {
                    path,
                    changed: false,
                },
                Some(lines) => Switch::ByHand { path, lines },
            }
        }
    })
}
