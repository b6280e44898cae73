//! The git-command mode's parsing and error classification.

use super::*;

#[test]
fn ls_remote_output_is_parsed() {
    let a = "1111111111111111111111111111111111111111";
    let b = "2222222222222222222222222222222222222222";
    let c = "3333333333333333333333333333333333333333";
    let text = format!(
        "ref: refs/heads/main\tHEAD\n{a}\tHEAD\n{a}\trefs/heads/main\n{b}\trefs/tags/v1\n{c}\trefs/tags/v1^{{}}\nnoise\n"
    );
    let (refs, default) = parse_ls_remote(&text);
    assert_eq!(default.as_deref(), Some("refs/heads/main"));
    let names: Vec<String> = refs.iter().map(|(n, o)| format!("{n}={o}")).collect();
    assert_eq!(
        names,
        [
            format!("HEAD={a}"),
            format!("refs/heads/main={a}"),
            format!("refs/tags/v1={c}")
        ]
    );
}

#[test]
fn stderr_is_trimmed_and_redacted() {
    let u = Userinfo {
        user: "me".into(),
        password: "hunter2".into(),
    };
    let text = "Receiving objects:  50% (1/2)\rReceiving objects: 100% (2/2), done.\nfatal: unable to access 'https://me:hunter2@h/x/': 403 hunter2\nPlease make sure you have the correct access rights\nand the repository exists.\n";
    assert_eq!(
        detail(text, Some(&u)),
        "fatal: unable to access 'https://***@h/x/': 403 ***"
    );
    assert_eq!(
        known_hosts_name("No ED25519 host key is known for [127.0.0.1]:2222 and you"),
        Some(("127.0.0.1".into(), Some("2222".into())))
    );
}

#[test]
fn failures_are_named_from_git_and_ssh_words() {
    let url = "ssh://git@example.com:2222/acme/kit.git";
    let code = |stderr: &str| match failure(url, "downloading", stderr, None) {
        GitError::Cli(e) => Some(e.code()),
        GitError::Stalled { .. } => None,
        other => panic!("{other:?}"),
    };
    let unknown = "No ED25519 host key is known for [example.com]:2222 and you have requested strict checking.\r\nHost key verification failed.\r\nfatal: Could not read from remote repository.\n";
    assert_eq!(code(unknown), Some(Code::GitHostKey));
    let GitError::Cli(e) = failure(url, "downloading", unknown, None) else {
        unreachable!()
    };
    assert!(
        e.help()
            .unwrap()
            .contains("ssh-keyscan -p 2222 example.com")
    );
    let changed = "@@@@@@@\n@    WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED!     @\nHost key verification failed.\n";
    assert_eq!(code(changed), Some(Code::GitHostKey));
    assert_eq!(
        code("git@example.com: Permission denied (publickey).\r\n"),
        Some(Code::GitAuth)
    );
    assert_eq!(
        code("fatal: could not read Username for 'https://h': terminal prompts disabled\n"),
        Some(Code::GitAuth)
    );
    assert_eq!(
        code("fatal: transport 'ext' not allowed\n"),
        Some(Code::UsageInvalidArgument)
    );
    assert_eq!(
        code("ssh: connect to host h port 22: Connection timed out\n"),
        None
    );
    assert_eq!(code("fatal: repository not found\n"), Some(Code::GitFetch));
    let missing = CliError::NoGit {
        url: url.into(),
        reason: "No such file or directory".into(),
    };
    assert_eq!(missing.code(), Code::GitNoGit);
}

#[test]
fn a_server_that_aborts_is_quoted_and_progress_is_not() {
    // libgit2's sideband text: progress with carriage returns, then the server's fatal.
    let said = "Enumerating objects: 3, done.\rCounting objects: 33% (1/3)\rCounting objects: 100% (3/3), done.\nfatal: unable to read 8178c7\naborting due to possible repository corruption on the remote side.\n";
    assert_eq!(
        server_words(said, false).as_deref(),
        Some(
            "remote: fatal: unable to read 8178c7; remote: aborting due to possible repository corruption on the remote side."
        )
    );
    assert_eq!(
        server_words("Counting objects: 100% (3/3), done.\n", false),
        None
    );
    // git's stderr: only `remote: ` lines are the server's.
    let stderr = "fatal: the remote end hung up unexpectedly\nremote: Total 3 (delta 0)\n";
    assert_eq!(server_words(stderr, true), None);
    let stderr = "remote: fatal: unable to read 8178c7\nfatal: protocol error: bad pack header\n";
    assert_eq!(
        server_words(stderr, true).as_deref(),
        Some("remote: fatal: unable to read 8178c7")
    );
}

/// The runner answers when git's pipes end and it exits, with everything both pipes said;
/// a process git started that holds a pipe open past git's exit holds the answer up for
/// at most the drain's second, not until it exits (here a minute); more standard output
/// than [`MAX_STDOUT`] is an error.
#[cfg(unix)]
#[test]
fn the_runner_answers_when_git_is_done() {
    let sh = |script: &str| {
        let mut c = Command::new("sh");
        c.args(["-c", script])
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        c
    };
    let ran = run(
        sh("printf out; printf err >&2; exit 3"),
        "u",
        "listing",
        false,
    )
    .unwrap();
    assert!(!ran.ok);
    assert_eq!(ran.stdout, b"out");
    assert_eq!(ran.stderr, "err");

    let tmp = tempfile::tempdir().unwrap();
    let pid_file = tmp.path().join("pid");
    let started = Instant::now();
    let ran = run(
        sh(&format!(
            "sleep 60 & echo $! > '{}'; echo hi",
            pid_file.display()
        )),
        "u",
        "listing",
        false,
    )
    .unwrap();
    let took = started.elapsed();
    let pid: i32 = fs_err::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // SAFETY: kill(2) on the sleep this test started.
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
    assert!(ran.ok);
    assert_eq!(ran.stdout, b"hi\n");
    assert!(took < Duration::from_secs(10), "{took:?}");

    let e = run(sh("head -c 70000000 /dev/zero"), "u", "downloading", false)
        .err()
        .unwrap();
    assert!(e.to_string().contains("wrote more than 64 MiB"), "{e}");
}
