//! protoAgent's installer gates, in the host's order (`protoagent-0218.md` §5.2): the
//! superseded short-circuit before anything is fetched (step 3), the source allowlist of
//! the instance config (step 4) and the built-in guard (step 8) on a fetched, valid
//! plugin, and the Node.js floor (`requires_runtimes`) the host reports as a setup gap.

use super::manifest::Profile;
use super::{allow_refusal, allowlist, builtin_message, is_bundled, node, superseding};
use crate::diagnostic::Code;
use crate::host::{Gate, Superseded};
use crate::store::Home;

/// The bundled plugin that supersedes `url` under `profile` (0.218 only).
pub(in crate::host) fn superseded(url: &str, profile: Profile) -> Option<Superseded> {
    superseding(url, profile).map(|(id, version)| Superseded { id, version })
}

/// The allowlist of `home`'s instance config admits `url`, and `id` is no bundled one.
pub(in crate::host) fn gates(
    home: Option<&Home>,
    profile: Profile,
    url: &str,
    id: &str,
) -> Result<(), Gate> {
    if let Some(home) = home {
        let config = home.root.join("config").join("langgraph-config.yaml");
        let allow = allowlist(&config, profile).map_err(|why| Gate {
            code: Code::InstallAllowlist,
            message: format!("Cannot read plugin source allowlist: {why}"),
            help: format!("fix `plugins.sources.allow` in {}", config.display()),
        })?;
        if let Some(why) = allow_refusal(url, &allow) {
            return Err(Gate {
                code: Code::InstallAllowlist,
                message: why,
                help: format!(
                    "the allowlist is `plugins.sources.allow` in {}",
                    config.display()
                ),
            });
        }
    }
    if is_bundled(id, profile) {
        return Err(Gate {
            code: Code::InstallBuiltin,
            message: builtin_message(id),
            help: "protoAgent runs its own bundled copy of this plugin; enable that one instead (or choose another id for a fork)".to_owned(),
        });
    }
    Ok(())
}

/// 0.218 loads a plugin whose `requires_runtimes` names a Node.js floor no `node` on
/// `PATH` meets, and raises a setup gap: what to say up front.
pub(in crate::host) fn runtime_gap(profile: Profile, manifest: &str) -> Option<String> {
    if profile != Profile::V0218 {
        return None;
    }
    let spec = crate::manifest::format::parse_yaml(manifest)
        .ok()
        .and_then(|doc| node::node_floor(&doc))?;
    node::gap_message(&spec, node::node_on_path())
}
