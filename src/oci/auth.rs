//! Registry credentials, found where container tools keep them, in this order:
//! `PLUGINS_REGISTRY_TOKEN` (with `PLUGINS_REGISTRY_USERNAME`: basic auth, else a bearer
//! token), `REGISTRY_AUTH_FILE` (podman's and skopeo's), then docker's
//! `$DOCKER_CONFIG/config.json` (else `~/.docker/config.json`): its `credHelpers` entry for
//! the registry, its `auths` entry, its `credsStore`. A helper is the program
//! `docker-credential-<name>` run with `get` and the registry on stdin, as docker runs it.
//! What is found is never printed nor written anywhere: [`Credentials::source`] names where
//! it came from.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use base64::Engine;

use super::OciError;
use crate::net::Secret;

/// What the environment says about registry credentials (read by `Context`).
#[derive(Clone, Debug, Default)]
pub struct RegistryEnv {
    /// `PLUGINS_REGISTRY_TOKEN`.
    pub token: Option<Secret>,
    /// `PLUGINS_REGISTRY_USERNAME`.
    pub username: Option<String>,
    /// `REGISTRY_AUTH_FILE`.
    pub auth_file: Option<PathBuf>,
    /// `$DOCKER_CONFIG/config.json`, else `$HOME/.docker/config.json`.
    pub docker_config: Option<PathBuf>,
}

/// How to authenticate to one registry, and where that came from (shown; the secret never is).
#[derive(Clone, Debug)]
pub struct Credentials {
    pub(super) auth: Auth,
    pub source: String,
}

#[derive(Clone)]
pub(super) enum Auth {
    Anonymous,
    Basic(String, Secret),
    Bearer(Secret),
}

impl std::fmt::Debug for Auth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Auth::Anonymous => f.write_str("Anonymous"),
            Auth::Basic(user, _) => write!(f, "Basic({user:?}, <redacted>)"),
            Auth::Bearer(_) => f.write_str("Bearer(<redacted>)"),
        }
    }
}

impl Auth {
    pub(super) fn client(&self) -> oci_client::secrets::RegistryAuth {
        use oci_client::secrets::RegistryAuth;
        match self {
            Auth::Anonymous => RegistryAuth::Anonymous,
            Auth::Basic(u, p) => RegistryAuth::Basic(u.clone(), p.0.clone()),
            Auth::Bearer(t) => RegistryAuth::Bearer(t.0.clone()),
        }
    }
}

/// The largest credentials file or helper answer read.
const MAX_CONFIG: u64 = 1 << 20;
/// How long a credential helper may take.
const HELPER_TIMEOUT: Duration = Duration::from_secs(30);

/// The credentials for `registry` (`host[:port]`).
pub fn for_registry(env: &RegistryEnv, registry: &str) -> Result<Credentials, OciError> {
    if let Some(token) = &env.token {
        return Ok(match &env.username {
            Some(user) => Credentials {
                auth: Auth::Basic(user.clone(), token.clone()),
                source: "PLUGINS_REGISTRY_USERNAME and PLUGINS_REGISTRY_TOKEN".into(),
            },
            None => Credentials {
                auth: Auth::Bearer(token.clone()),
                source: "PLUGINS_REGISTRY_TOKEN".into(),
            },
        });
    }
    for (file, name) in [
        (&env.auth_file, "REGISTRY_AUTH_FILE"),
        (&env.docker_config, "docker's config"),
    ] {
        let Some(file) = file else { continue };
        if let Some(found) = from_file(file, registry, name)? {
            return Ok(found);
        }
    }
    Ok(Credentials {
        auth: Auth::Anonymous,
        source: "none (anonymous)".into(),
    })
}

/// The entry for `registry` in a docker-style config file: `credHelpers`, `auths`,
/// `credsStore`, in docker's order. A missing file is no entry; an unreadable or
/// malformed one is an error naming it.
fn from_file(file: &Path, registry: &str, name: &str) -> Result<Option<Credentials>, OciError> {
    let bad = |why: String| OciError::Credentials {
        source_name: format!("{name} {}", file.display()),
        why,
    };
    let text = match crate::file::read_at_most(file, MAX_CONFIG) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(bad(crate::file::reason(&e).into_owned())),
    };
    let config: serde_json::Value =
        serde_json::from_slice(&text).map_err(|e| bad(format!("not JSON: {e}")))?;
    let shown = format!("{name} {}", file.display());
    if let Some(helper) = config
        .get("credHelpers")
        .and_then(|h| entry_for(h, registry))
        .and_then(|v| v.as_str())
    {
        return helper_get(helper, registry, &shown).map(Some);
    }
    if let Some(entry) = config.get("auths").and_then(|a| entry_for(a, registry)) {
        if let Some(token) = entry.get("identitytoken").and_then(|t| t.as_str()) {
            return Ok(Some(Credentials {
                auth: Auth::Bearer(Secret(token.to_owned())),
                source: format!("{shown} (auths, identity token)"),
            }));
        }
        if let Some(auth) = entry.get("auth").and_then(|t| t.as_str()) {
            let decoded = base64::engine::general_purpose::STANDARD
                .decode(auth.trim())
                .ok()
                .and_then(|b| String::from_utf8(b).ok())
                .ok_or_else(|| {
                    bad(format!(
                        "auths.{registry:?}.auth is not base64 of user:password"
                    ))
                })?;
            let (user, pass) = decoded.split_once(':').ok_or_else(|| {
                bad(format!(
                    "auths.{registry:?}.auth is not base64 of user:password"
                ))
            })?;
            return Ok(Some(Credentials {
                auth: Auth::Basic(user.to_owned(), Secret(pass.to_owned())),
                source: format!("{shown} (auths)"),
            }));
        }
    }
    if let Some(store) = config.get("credsStore").and_then(|s| s.as_str()) {
        return helper_get(store, registry, &shown).map(Some);
    }
    Ok(None)
}

/// The value under `registry` in a map keyed as docker keys it: `host[:port]`, or a URL
/// (`https://host[:port]/v1/`).
fn entry_for<'a>(map: &'a serde_json::Value, registry: &str) -> Option<&'a serde_json::Value> {
    let map = map.as_object()?;
    map.iter()
        .find(|(key, _)| {
            let k = key
                .strip_prefix("https://")
                .or_else(|| key.strip_prefix("http://"))
                .unwrap_or(key);
            let k = k.split('/').next().unwrap_or(k);
            k.eq_ignore_ascii_case(registry)
        })
        .map(|(_, v)| v)
}

/// Run `docker-credential-<helper> get` with the registry on stdin (bounded in time and
/// output) and read its `{"Username", "Secret"}`. The helper's name is a program name,
/// never a path.
fn helper_get(helper: &str, registry: &str, shown: &str) -> Result<Credentials, OciError> {
    let source = format!("{shown} (docker-credential-{helper})");
    let bad = |why: String| OciError::Credentials {
        source_name: source.clone(),
        why,
    };
    if helper.is_empty()
        || helper.len() > 64
        || !helper
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
        || helper.starts_with('.')
    {
        return Err(bad("the helper's name is not a program name".into()));
    }
    let program = format!("docker-credential-{helper}");
    let (status, out) = ask(&program, registry).map_err(|e| match e.kind() {
        std::io::ErrorKind::TimedOut => bad(format!(
            "{program} did not answer in {} s",
            HELPER_TIMEOUT.as_secs()
        )),
        _ => bad(format!("cannot run {program}: {}", crate::file::reason(&e))),
    })?;
    if !status.success() {
        // "credentials not found in native keychain": no entry, anonymous.
        return Ok(Credentials {
            auth: Auth::Anonymous,
            source: format!("{source}: no entry, anonymous"),
        });
    }
    #[derive(serde::Deserialize)]
    struct Answer {
        #[serde(rename = "Username")]
        username: String,
        #[serde(rename = "Secret")]
        secret: String,
    }
    let answer: Answer = serde_json::from_slice(&out).map_err(|_| {
        bad(format!(
            "{program} get did not print {{\"Username\", \"Secret\"}}"
        ))
    })?;
    // docker's convention: the user `<token>` means the secret is an identity token.
    let auth = if answer.username == "<token>" {
        Auth::Bearer(Secret(answer.secret))
    } else {
        Auth::Basic(answer.username, Secret(answer.secret))
    };
    Ok(Credentials { auth, source })
}

/// Run `program get` with `registry` on stdin, in a process group of its own, for at most
/// [`HELPER_TIMEOUT`]: its exit status and what it printed (up to [`MAX_CONFIG`] bytes).
/// What it leaves holding its output is killed with its group after a 1 s grace; a helper
/// past its time is stopped with its group (`TimedOut`).
fn ask(program: &str, registry: &str) -> std::io::Result<(std::process::ExitStatus, Vec<u8>)> {
    let mut cmd = std::process::Command::new(program);
    cmd.arg("get")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null());
    // A group of its own: what it starts is stopped with it (nothing outlives the command).
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
    let mut child = cmd.spawn()?;
    let pgid = i32::try_from(child.id()).unwrap_or(0);
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(registry.as_bytes());
    }
    let mut stdout = child.stdout.take().expect("piped");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = (&mut stdout).take(MAX_CONFIG).read_to_end(&mut out);
        let _ = tx.send(out);
    });
    let started = std::time::Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > HELPER_TIMEOUT => {
                crate::steps::stop_group(pgid);
                let _ = child.kill();
                let _ = child.wait();
                return Err(std::io::ErrorKind::TimedOut.into());
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(e),
        }
    };
    // It has answered and exited; what it left running (holding its output open) is
    // stopped with its group after a short grace, and the answer read as it stands.
    let out = match rx.recv_timeout(Duration::from_secs(1)) {
        Ok(out) => out,
        Err(_) => {
            // Its leader is reaped: the group (which keeps its id while a member lives) is
            // killed, never the leader's pid, which the system may have given to another.
            crate::steps::kill_group(pgid);
            rx.recv_timeout(Duration::from_secs(1)).unwrap_or_default()
        }
    };
    Ok((status, out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docker_config_entries_are_found_by_registry_and_never_shown() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("config.json");
        let auth = base64::engine::general_purpose::STANDARD.encode("fleet:s3cret-pw");
        fs_err::write(
            &file,
            format!(r#"{{"auths": {{"https://reg.example:5000/v1/": {{"auth": "{auth}"}}}}}}"#),
        )
        .unwrap();
        let env = RegistryEnv {
            docker_config: Some(file.clone()),
            ..RegistryEnv::default()
        };
        let found = for_registry(&env, "reg.example:5000").unwrap();
        assert!(matches!(&found.auth, Auth::Basic(u, p) if u == "fleet" && p.0 == "s3cret-pw"));
        assert!(!format!("{found:?}").contains("s3cret"));
        assert!(found.source.ends_with("(auths)"));
        let none = for_registry(&env, "other.example").unwrap();
        assert!(matches!(none.auth, Auth::Anonymous));
        // A helper's name is a program name, never a path.
        fs_err::write(&file, r#"{"credsStore": "../../bin/sh"}"#).unwrap();
        assert!(for_registry(&env, "reg.example:5000").is_err());
    }
}
