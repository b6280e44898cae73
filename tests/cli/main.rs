//! The one integration test binary: runs `plugins` as users do.

// Tests read their own switches (PLUGINS_HOST_PYTHON, CI, …); the program reads the
// environment only through Context (clippy.toml). Tests open files with std::fs (a
// failure panics at the test's own line); the program goes through fs_err.
#![allow(clippy::disallowed_methods, clippy::disallowed_types)]

mod support;

mod action;
mod architecture;
mod auth;
mod bad_input;
mod bounds;
mod bundle;
mod cli;
mod codes;
mod corpus_aoe;
mod corpus_aworld;
mod corpus_protoagent;
mod crash;
mod deps;
mod docs;
mod doctor;
mod editor;
mod featured;
mod formats;
mod frozen;
mod github;
mod home_host;
mod hostile;
mod hosts;
mod install;
mod install_sh;
mod install_sh_release;
mod lock;
mod lock_contract;
mod lock_fuzz;
mod lsp;
mod missing_corpus;
mod monorepo;
mod moved;
mod new;
mod oci;
mod offline;
mod parity;
mod pins;
mod pool;
mod pre_commit;
mod protoagent_0218;
mod protoagent_0218_install;
mod rehearsal;
mod release;
mod resolve;
mod review;
mod rollback;
mod sarif;
mod scratch;
mod search;
mod shells;
mod signed;
mod soak;
mod ssh;
mod subdir;
mod systemd;
mod trust;
mod uncovered;
mod update;
mod upstream;
mod validate_aoe;
mod validate_aworld;
mod validate_protoagent;
mod views;
mod wheel;
mod workflows;
