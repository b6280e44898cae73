//! The one integration test binary: runs `plugins` as users do.

mod support;

mod action;
mod auth;
mod bad_input;
mod bounds;
mod cli;
mod codes;
mod corpus_aoe;
mod corpus_aworld;
mod corpus_protoagent;
mod crash;
mod docs;
mod editor;
mod featured;
mod formats;
mod github;
mod hostile;
mod hosts;
mod install;
mod install_sh;
mod install_sh_release;
mod lock;
mod lock_fuzz;
mod missing_corpus;
mod new;
mod parity;
mod pre_commit;
mod release;
mod resolve;
mod rollback;
mod sarif;
mod update;
mod validate_aoe;
mod validate_aworld;
mod validate_protoagent;
