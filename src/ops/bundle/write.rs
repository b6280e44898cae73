//! Writing a gathered bundle: one tar archive beside `-o FILE`, or the registry's blobs.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use super::builds::BUILDS;
use super::{Gathered, MANIFEST, Refusal};
use crate::error::{Error, Result};

/// The registry's blobs of a gathered bundle: the config (its manifest), the lock, and one
/// deterministic tar per plugin and kind (`trees/<id>`, `wheels/<id>`, `assets/<id>`,
/// `builds/<id>`: the same
/// files make the same digest, so an unchanged plugin is not uploaded again).
pub(super) fn layers(g: &Gathered) -> Result<(crate::oci::Layer, Vec<crate::oci::Layer>)> {
    let dir = g.work.path().join("oci");
    let io = |e| Error::io("cannot write a layer", e);
    fs_err::create_dir_all(&dir).map_err(io)?;
    let blob = |name: &str, bytes: &[u8], media_type, title: Option<&str>| -> Result<_> {
        let path = dir.join(name);
        fs_err::write(&path, bytes).map_err(io)?;
        Ok(crate::oci::Layer {
            path,
            media_type,
            digest: crate::hash::bytes(bytes),
            size: bytes.len() as u64,
            title: title.map(str::to_owned),
        })
    };
    let text = serde_json::to_vec_pretty(&g.manifest).map_err(|e| io(std::io::Error::other(e)))?;
    let config = blob(MANIFEST, &text, crate::oci::CONFIG_TYPE, None)?;
    let mut out = vec![blob(
        "plugins.lock",
        &g.lock_bytes,
        crate::oci::LOCK_TYPE,
        Some("plugins.lock"),
    )?];
    let mut groups: BTreeMap<String, Vec<&(String, PathBuf)>> = BTreeMap::new();
    for entry in &g.listed {
        let group: Vec<&str> = entry.0.splitn(3, '/').take(2).collect();
        groups.entry(group.join("/")).or_default().push(entry);
    }
    for (n, (title, files)) in groups.iter().enumerate() {
        let path = dir.join(format!("{n}.tar"));
        let file = fs_err::File::create(&path).map_err(io)?;
        let mut tar = tar::Builder::new(std::io::BufWriter::new(file));
        for (rel, from) in files {
            append(&mut tar, rel, from).map_err(io)?;
        }
        let mut inner = tar.into_inner().map_err(io)?;
        inner.flush().map_err(io)?;
        drop(inner);
        let digest = fs_err::File::open(&path)
            .and_then(crate::hash::reader)
            .map_err(io)?;
        let size = fs_err::metadata(&path).map_err(io)?.len();
        out.push(crate::oci::Layer {
            path,
            media_type: crate::oci::FILES_TYPE,
            digest,
            size,
            title: Some(title.clone()),
        });
    }
    Ok((config, out))
}

/// One regular file of a bundle, as every bundle writes it: mode 0644, no owner, time 0;
/// an executable file of a build output (`builds/…`: the worker aoe runs) mode 0755.
fn append(tar: &mut tar::Builder<impl Write>, rel: &str, path: &Path) -> std::io::Result<()> {
    let file = fs_err::File::open(path)?;
    let meta = file.metadata()?;
    let mode = if rel.starts_with(&format!("{BUILDS}/")) && executable(&meta) {
        0o755
    } else {
        0o644
    };
    append_mode(tar, rel, meta.len(), file, mode)
}

#[cfg(unix)]
fn executable(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    meta.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn executable(_: &std::fs::Metadata) -> bool {
    false
}

/// `size` bytes of `data` at `rel` (at most the size the header promised, should a file
/// grow meanwhile).
fn append_data(
    tar: &mut tar::Builder<impl Write>,
    rel: &str,
    size: u64,
    data: impl Read,
) -> std::io::Result<()> {
    append_mode(tar, rel, size, data, 0o644)
}

fn append_mode(
    tar: &mut tar::Builder<impl Write>,
    rel: &str,
    size: u64,
    data: impl Read,
    mode: u32,
) -> std::io::Result<()> {
    let mut header = tar::Header::new_gnu();
    header.set_size(size);
    header.set_mode(mode);
    header.set_entry_type(tar::EntryType::Regular);
    tar.append_data(&mut header, rel, &mut data.take(size))
}

/// Write `g` as one tar archive to a temporary file beside `output`, renamed over it.
pub(super) fn write_file(
    g: &Gathered,
    output: &Path,
    home: &crate::store::Home,
    force: bool,
) -> Result<u64> {
    let (lock_bytes, manifest, listed) = (&g.lock_bytes, &g.manifest, &g.listed);
    let dir = output.parent().unwrap_or(Path::new("."));
    let written = (|| -> std::io::Result<u64> {
        let name = output.file_name().unwrap_or_default().to_string_lossy();
        // `.<name>.<owner>.<random>.tmp`: a rerun removes it once its owner is gone.
        let tmp = tempfile::Builder::new()
            .prefix(&crate::owner::beside_prefix(&name))
            .rand_bytes(crate::owner::BESIDE_RANDOM)
            .suffix(".tmp")
            .tempfile_in(dir)?;
        let mut tar = tar::Builder::new(std::io::BufWriter::new(tmp.as_file()));
        tar.mode(tar::HeaderMode::Deterministic);
        let text = serde_json::to_vec_pretty(manifest).map_err(std::io::Error::other)?;
        append_data(&mut tar, MANIFEST, text.len() as u64, text.as_slice())?;
        append_data(
            &mut tar,
            "plugins.lock",
            lock_bytes.len() as u64,
            lock_bytes.as_slice(),
        )?;
        for (rel, path) in listed {
            append(&mut tar, rel, path)?;
        }
        let mut inner = tar.into_inner()?;
        inner.flush()?;
        drop(inner);
        tmp.as_file().sync_all()?;
        let bytes = tmp.as_file().metadata()?.len();
        // Without --force nothing is replaced, also not a file that appeared meanwhile (a
        // link, which fails when the name exists); with it, only a regular file is.
        if force {
            check_output(output, home, true).map_err(std::io::Error::other)?;
            tmp.persist(output).map_err(|e| e.error)?;
        } else {
            tmp.persist_noclobber(output).map_err(|e| e.error)?;
        }
        Ok(bytes)
    })()
    .map_err(|why| Refusal::Unwritable {
        output: output.to_owned(),
        why,
    })?;
    Ok(written)
}

/// Where `plugins bundle` may write: a name that does not exist, or with `force` a regular
/// file; never a FIFO, a device, a directory or a symbolic link, and never inside the home
/// (its lock, its plugins, its records are `plugins`' own and the host's).
pub(super) fn check_output(output: &Path, home: &crate::store::Home, force: bool) -> Result<()> {
    let parent = output.parent().unwrap_or(Path::new("."));
    if let (Ok(dir), Ok(root)) = (
        fs_err::canonicalize(parent),
        fs_err::canonicalize(&home.root),
    ) && dir.starts_with(&root)
    {
        let (output, home) = (output.to_owned(), home.root.clone());
        return Err(Refusal::OutputInHome { output, home }.into());
    }
    let refused = match fs_err::symlink_metadata(output) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Ok(m) if m.file_type().is_file() && force => return Ok(()),
        Ok(m) if m.file_type().is_file() => Refusal::OutputExists {
            output: output.to_owned(),
        },
        Ok(m) => Refusal::OutputKind {
            output: output.to_owned(),
            kind: crate::file::kind(&m),
        },
        Err(e) => Refusal::OutputUnusable {
            output: output.to_owned(),
            why: crate::file::reason(&e).into_owned(),
        },
    };
    Err(refused.into())
}
