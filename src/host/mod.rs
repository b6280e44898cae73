//! What makes an install take effect in the real hosts beyond the plugin tree and
//! the lock: where each host looks (protoAgent's instance paths, aoe's app dir) and
//! the host's own records (aoe's `config.toml` grant, enable/disable switches).
//! Domain code: no printing, no environment reads.

pub mod aoe;
pub mod protoagent;
