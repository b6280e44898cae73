//! The one integration test binary: runs `plugins` as users do.

mod support;

mod bad_input;
mod cli;
mod codes;
mod corpus_aoe;
mod corpus_aworld;
mod corpus_protoagent;
mod crash;
mod docs;
mod formats;
mod hostile;
mod install;
mod install_sh;
mod lock;
mod missing_corpus;
mod new;
mod parity;
mod release;
mod resolve;
mod update;
mod validate_aoe;
mod validate_aworld;
mod validate_protoagent;
