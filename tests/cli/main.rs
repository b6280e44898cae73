//! The one integration test binary: runs `plugins` as users do.

mod support;

mod action;
mod bad_input;
mod cli;
mod codes;
mod corpus_aoe;
mod corpus_aworld;
mod corpus_protoagent;
mod crash;
mod docs;
mod editor;
mod formats;
mod github;
mod hostile;
mod install;
mod install_sh;
mod install_sh_release;
mod lock;
mod missing_corpus;
mod new;
mod pre_commit;
mod release;
mod resolve;
mod sarif;
mod update;
mod validate_aoe;
mod validate_aworld;
mod validate_protoagent;
