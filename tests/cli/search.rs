//! `plugins search` (issue #30): the featured index shipped in the binary (or the file
//! `PLUGINS_FEATURED_INDEX` names) and the installed homes, each hit with the command line
//! `install` would take, which works as printed.

use std::path::Path;

use serde_json::Value;
use snapbox::str;

use crate::support::git::Repo;
use crate::support::*;

/// `plugins search <args>` with `tmp` as HOME (shown as `[TMP]`) and `index` as the
/// featured index.
fn search(tmp: &Path, args: &[&str], index: Option<&Path>) -> Ran {
    let mut cmd = Plugins::new();
    cmd.env("HOME", tmp.join("user"))
        .env_remove("XDG_CONFIG_HOME")
        .env_remove("AOE_FEATURED_INDEX_PATH")
        .env("PROTOAGENT_HOME", tmp.join("no-protoagent"));
    match index {
        Some(index) => cmd.env("PLUGINS_FEATURED_INDEX", index),
        None => cmd.env_remove("PLUGINS_FEATURED_INDEX"),
    };
    cmd.arg("search").args(args).tmp(tmp).run()
}

#[test]
fn search_lists_featured_and_installed_plugins_with_their_install_lines() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    std::fs::create_dir_all(t.join("user")).unwrap();
    let repo = Repo::init(&t.join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    let home = t.join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    let index = t.join("featured.toml");
    std::fs::write(
        &index,
        "[plugins.\"dev.acme.kanban\"]\nsource = \"gh:acme/kanban\"\n\
         versions = { \"1.0.0\" = \"sha256:00\", \"1.10.0\" = \"sha256:01\", \"1.2.0\" = \"sha256:02\" }\n",
    )
    .unwrap();
    let h = home.to_str().unwrap();

    search(t, &["--home", h], Some(&index)).expect(
        0,
        str![[r#"
dev.acme.kanban (aoe) from gh:acme/kanban: featured, pinned up to 1.10.0
    plugins install gh:acme/kanban --home [TMP]/home
    installs the latest GitHub release of acme/kanban; featured-verified when it is one of the 3 pinned versions (1.10.0 and 2 earlier)
dev.example.pinned (aoe) from file://[TMP]/repo: installed 1.0.0 in [TMP]/home
    plugins install file://[TMP]/repo --ref main --home [TMP]/home
    installed in [TMP]/home (1.0.0): installing it again at the same commit changes nothing; `plugins update dev.example.pinned` takes a newer version

"#]],
        str![""],
    );
    // Every word must match the id, the source or the host's name.
    search(t, &["KANBAN", "acme", "--home", h], Some(&index)).expect(0, str![[r#"
dev.acme.kanban (aoe) from gh:acme/kanban: featured, pinned up to 1.10.0
    plugins install gh:acme/kanban --home [TMP]/home
    installs the latest GitHub release of acme/kanban; featured-verified when it is one of the 3 pinned versions (1.10.0 and 2 earlier)

"#]], str![""]);
    search(t, &["nothing-like-it", "--home", h], Some(&index)).expect(0, str![[r#"
no plugin matches `nothing-like-it` (searched the featured index, the hosts' catalogs and the installed homes)

"#]], str![""]);

    // --json: the schema, and an install line that works as printed.
    let ran = search(t, &["pinned", "--json", "--home", h], Some(&index));
    ran.expect(0, str![[r#"
{
  "format_version": 1,
  "query": "pinned",
  "plugins": [
    {
      "id": "dev.example.pinned",
      "dialect": "aoe",
      "source": "file://[TMP]/repo",
      "installed": [
        {
          "home": "[TMP]/home",
          "version": "1.0.0",
          "ref": "main",
          "commit": "98dbc36b17da9b3db35834c2a7d382bb249e05d4"
        }
      ],
      "install": "plugins install file://[TMP]/repo --ref main --home [TMP]/home",
      "does": "installed in [TMP]/home (1.0.0): installing it again at the same commit changes nothing; `plugins update dev.example.pinned` takes a newer version"
    }
  ]
}

"#]], str![""]);
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schema/output/search.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let errors: Vec<String> = jsonschema::validator_for(&schema)
        .unwrap()
        .iter_errors(&doc)
        .map(|e| e.to_string())
        .collect();
    assert_eq!(errors, Vec::<String>::new(), "{doc:#}");
    assert_eq!(doc["query"], "pinned");
    let hit = &doc["plugins"][0];
    assert_eq!(
        hit["installed"][0]["commit"],
        locked(&home, "dev.example.pinned", "resolved_commit")
    );
    let line = hit["install"].as_str().unwrap();
    let other = t.join("other");
    let words: Vec<String> = line
        .replace(h, other.to_str().unwrap())
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    assert_eq!(words[0], "plugins");
    Plugins::new()
        .tmp(t)
        .args(&words[1..])
        .arg("--yes")
        .run()
        .expect(
            0,
            str![[r#"
   Installed dev.example.pinned 1.0.0 @ 98dbc36b17 in [TMP]/other/plugins/dev.example.pinned

"#]],
            str![[r#"
    Fetching file://[TMP]/repo
     Fetched 98dbc36b17da

"#]],
        );
    assert_eq!(
        locked(&other, "dev.example.pinned", "resolved_commit"),
        locked(&home, "dev.example.pinned", "resolved_commit")
    );
}

/// Without an override, the index shipped in the binary is searched.
#[test]
fn search_reads_the_featured_index_in_the_binary() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    std::fs::create_dir_all(t.join("user")).unwrap();
    let empty = t.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let ran = search(t, &["github", "--home", empty.to_str().unwrap()], None);
    ran.expect(0, str![[r#"
agent-of-empires.github (aoe) from gh:agent-of-empires/plugin-github: featured, pinned up to 1.7.0
    plugins install gh:agent-of-empires/plugin-github --home [TMP]/empty
    installs the latest GitHub release of agent-of-empires/plugin-github; featured-verified when it is one of the 9 pinned versions (1.7.0 and 8 earlier)

"#]], str![""]);
    let stdout = &ran.stdout;
    let first = stdout.lines().next().unwrap_or_default();
    assert_eq!(
        first,
        "agent-of-empires.github (aoe) from gh:agent-of-empires/plugin-github: featured, pinned up to 1.7.0"
    );
    assert!(
        stdout.contains(&format!(
            "    plugins install gh:agent-of-empires/plugin-github --home {}\n",
            empty.display()
        )),
        "{stdout}"
    );
}

/// protoAgent's own catalog (the real one its package ships, as an instance's
/// `config/plugin-catalog.json`): every entry it lists is a hit with the install line the
/// catalog's one-click install would run, an installed one joins its locked row (matched by
/// id, as the host matches), and a catalog the host cannot read adds nothing.
#[test]
fn search_lists_protoagents_catalog() {
    let Some(py) = crate::support::hosts::host_python() else {
        return;
    };
    let site = python_script(
        &py,
        "import sysconfig; print(sysconfig.get_paths()['purelib'])",
        &[],
        Path::new("/"),
    );
    let real = Path::new(site.trim()).join("config/plugin-catalog.json");
    let listed: Value = serde_json::from_str(&std::fs::read_to_string(&real).unwrap()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    std::fs::create_dir_all(t.join("user")).unwrap();
    let home = t.join("instance");
    crate::support::protoagent::instance(&home, None);
    // The real catalog, and hostile entries an instance's file could hold: none is listed.
    let mut with_hostile = listed.clone();
    for (id, repo) in [
        (
            "evil-newline",
            "https://github.com/acme/x\n--index-url http://127.0.0.1/",
        ),
        ("evil-path", "https://github.com/acme/x/tree/main/../../etc"),
        ("evil-ext", "ext::sh -c id"),
        ("../evil-id", "https://github.com/acme/x"),
        ("evil-userinfo", "https://user:secret@github.com/acme/x"),
    ] {
        with_hostile["plugins"]
            .as_array_mut()
            .unwrap()
            .push(serde_json::json!({"id": id, "name": "Evil", "repo": repo}));
    }
    std::fs::write(
        home.join("config/plugin-catalog.json"),
        serde_json::to_string(&with_hostile).unwrap(),
    )
    .unwrap();
    // `discord` installed from a local repository: one hit, installed and listed.
    let repo = crate::support::protoagent::plugin_repo(&t.join("discord-src"), "discord");
    Plugins::new()
        .tmp(t)
        .args(["install", &repo.url(), "--yes", "--home"])
        .arg(&home)
        .run()
        .expect(
            0,
            str![[r#"
   Installed discord 1.0.0 @ f80bd55461 in [TMP]/instance/plugins/discord

"#]],
            str![[r#"
    Fetching file://[TMP]/discord-src
     Fetched f80bd554614d
protoagent plugin `discord` 1.0.0 from file://[TMP]/discord-src @ f80bd554614d
  capabilities: none
  build steps:  none
  runs code inside the host process

"#]],
        );
    let h = home.to_str().unwrap();
    let ran = search(t, &["--home", h, "--json"], None);
    assert_eq!((ran.code, ran.stderr.as_str()), (0, ""));
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_matches_output_schema("search.json", &doc);
    let hits = doc["plugins"].as_array().unwrap();
    let catalog = listed["plugins"].as_array().unwrap();
    assert_eq!(
        hits.iter().filter(|p| p.get("catalog").is_some()).count(),
        catalog.len(),
        "every entry of the host's catalog is a hit, and no hostile one"
    );
    assert!(
        !ran.stdout.contains("evil") && !ran.stdout.contains("Evil"),
        "{}",
        ran.stdout
    );
    let discord: Vec<&Value> = hits.iter().filter(|p| p["id"] == "discord").collect();
    assert_eq!(discord.len(), 1, "{discord:?}");
    assert_eq!(discord[0]["installed"][0]["version"], "1.0.0");
    // A subdirectory entry installs as the gh: source it is.
    let artifact = hits.iter().find(|p| p["id"] == "artifact").unwrap();
    assert_eq!(
        artifact["install"],
        format!(
            "plugins install https://github.com/protoLabsAI/protoAgent/tree/main/plugins/artifact --home {h}"
        )
    );
    // What a person reads, for one word of a tagline.
    search(t, &["discord", "--home", h], None)
        .success()
        .stdout_eq(str![[r#"
discord (protoagent) from https://github.com/protoLabsAI/discord-plugin: in protoAgent's catalog (official); installed 1.0.0 in [TMP]/instance
    plugins install https://github.com/protoLabsAI/discord-plugin --home [TMP]/instance
    installs Discord: Run your agent as a Discord bot — inbound DMs + @-mentions, outbound send/read/react tools. (adds: surface, tool, secrets); installed from file://[TMP]/discord-src in [TMP]/instance (1.0.0)

"#]]);
    // An unreadable catalog: nothing from it (as the host shows nothing).
    std::fs::write(home.join("config/plugin-catalog.json"), "{not json").unwrap();
    let ran = search(t, &["--home", h, "--json"], None);
    let doc: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert!(
        doc["plugins"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p.get("catalog").is_none()),
        "{doc}"
    );
}

/// `--index FILE`: an index file in the documented format (docs/schema/index.json, which the
/// file is checked against here too) is searched beside the rest; an installed entry joins
/// its row; a file that is not the format, or that lists a source `install` would refuse, is
/// refused by name.
#[test]
fn search_reads_index_files_in_the_documented_format() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    std::fs::create_dir_all(t.join("user")).unwrap();
    let repo = Repo::init(&t.join("repo"));
    repo.file("aoe-plugin.toml", &static_aoe("1.0.0"));
    repo.commit("v1");
    let home = t.join("home");
    assert_eq!(install(&home, &[&repo.url(), "--ref", "main"]).0, 0);
    let index = t.join("team-index.json");
    let doc = serde_json::json!({"format_version": 1, "plugins": [
        {"id": "dev.acme.board", "dialect": "aoe", "source": "gh:acme/board@v2",
         "name": "Board", "description": "A kanban board in a pane", "adds": ["view"]},
        {"id": "dev.example.pinned", "dialect": "aoe", "source": repo.url()},
        {"id": "notes", "dialect": "protoagent",
         "source": "https://github.com/acme/plugins/tree/main/notes"}
    ]});
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/schema/index.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    assert!(validator.is_valid(&doc), "the documented format accepts it");
    std::fs::write(&index, serde_json::to_string_pretty(&doc).unwrap()).unwrap();
    let h = home.to_str().unwrap();
    let i = index.to_str().unwrap();
    search(t, &["--home", h, "--index", i], None)
        .success()
        .stdout_eq(str![[r#"
agent-of-empires.github (aoe) from gh:agent-of-empires/plugin-github: featured, pinned up to 1.7.0
    plugins install gh:agent-of-empires/plugin-github --home [TMP]/home
    installs the latest GitHub release of agent-of-empires/plugin-github; featured-verified when it is one of the 9 pinned versions (1.7.0 and 8 earlier)
dev.acme.board (aoe) from gh:acme/board@v2: in the index [TMP]/team-index.json
    plugins install gh:acme/board@v2 --home [TMP]/home
    installs Board: A kanban board in a pane (adds: view)
dev.example.pinned (aoe) from file://[TMP]/repo: in the index [TMP]/team-index.json; installed 1.0.0 in [TMP]/home
    plugins install file://[TMP]/repo --home [TMP]/home
    installed in [TMP]/home (1.0.0): installing it again at the same commit changes nothing; `plugins update dev.example.pinned` takes a newer version
notes (protoagent) from https://github.com/acme/plugins/tree/main/notes: in the index [TMP]/team-index.json
    plugins install https://github.com/acme/plugins/tree/main/notes --home [TMP]/home
    installs notes

"#]]);
    let ran = search(t, &["kanban", "--home", h, "--index", i, "--json"], None);
    let json: Value = serde_json::from_str(&ran.stdout).unwrap();
    assert_matches_output_schema("search.json", &json);
    assert_eq!(json["plugins"].as_array().map(Vec::len), Some(1), "{json}");
    // Not the format (the schema refuses these too), an id that names no directory, a
    // source install refuses (these only plugins' own checks catch).
    let bad = [
        (
            serde_json::json!({"format_version": 1, "plugins": [{"id": "x", "dialect": "aoe", "source": "gh:a/b", "extra": 1}]}),
            true,
        ),
        (
            serde_json::json!({"format_version": 2, "plugins": []}),
            true,
        ),
        (
            serde_json::json!({"format_version": 1, "plugins": [{"id": "../x", "dialect": "aoe", "source": "gh:a/b"}]}),
            false,
        ),
        (
            serde_json::json!({"format_version": 1, "plugins": [{"id": "x", "dialect": "aoe", "source": "ext::sh -c evil"}]}),
            false,
        ),
    ];
    for (doc, schema_refuses) in bad {
        assert_eq!(!validator.is_valid(&doc), schema_refuses, "{doc}");
        std::fs::write(&index, doc.to_string()).unwrap();
        let ran = search(t, &["--home", h, "--index", i], None);
        assert_eq!(ran.code, 2, "{doc}: {}{}", ran.stdout, ran.stderr);
        assert!(
            ran.stderr.contains("plugins::search::index"),
            "{doc}: {}",
            ran.stderr
        );
    }
}

/// An index by URL (`--index https://…`, here a loopback HTTP server: `http://` is taken only
/// from this machine) and the indexes a home names in `[search] indexes` of its plugins.toml
/// (a relative file is the home's).
#[test]
fn search_reads_indexes_by_url_and_from_the_homes_plugins_toml() {
    let tmp = tempfile::tempdir().unwrap();
    let t = tmp.path();
    std::fs::create_dir_all(t.join("user")).unwrap();
    let served = t.join("served");
    std::fs::create_dir_all(&served).unwrap();
    let index = |id: &str, source: &str| {
        serde_json::to_string(&serde_json::json!({"format_version": 1, "plugins": [
            {"id": id, "dialect": "aoe", "source": source, "description": "from an index"}
        ]}))
        .unwrap()
    };
    std::fs::write(
        served.join("team.json"),
        index("dev.acme.served", "gh:acme/served"),
    )
    .unwrap();
    let server = crate::support::net::FileServer::start(&served);
    let url = format!("{}/team.json", server.base);
    // A home whose plugins.toml names a file beside it and the URL.
    let home = t.join("home");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::write(
        home.join("local.json"),
        index("dev.acme.local", "gh:acme/local"),
    )
    .unwrap();
    std::fs::write(
        home.join("plugins.toml"),
        format!("[search]\nindexes = [\"local.json\", \"{url}\"]\n"),
    )
    .unwrap();
    std::fs::write(home.join("plugins.lock"), "").unwrap();
    let h = home.to_str().unwrap();
    let mut ran = search(t, &["acme", "--home", h], None);
    ran.redact("[URL]", &url);
    ran.success().stdout_eq(str![[r#"
dev.acme.local (aoe) from gh:acme/local: in the index [TMP]/home/local.json
    plugins install gh:acme/local --home [TMP]/home
    installs dev.acme.local: from an index
dev.acme.served (aoe) from gh:acme/served: in the index [URL]
    plugins install gh:acme/served --home [TMP]/home
    installs dev.acme.served: from an index

"#]]);
    assert!(
        server
            .requests()
            .iter()
            .any(|r| r.starts_with("GET /team.json")),
        "{:?}",
        server.requests()
    );
    // The same URL on the command line; plain HTTP to another machine is refused by name.
    let ran = search(t, &["served", "--index", &url], None);
    ran.success();
    search(
        t,
        &["x", "--index", "http://index.example.invalid/team.json"],
        None,
    )
    .code(2)
    .stderr_eq(str![[r#"
plugins::search::index

  × cannot read the index http://index.example.invalid/team.json: http:// is cleartext: anyone on
  │ the path could change what it lists; use https://
  help: an index is JSON as docs/schema/index.json describes it: {"format_version": 1, "plugins":
        [{"id", "dialect", "source", "name", "description", "adds"}]}, each source one `plugins
        install` takes

"#]]);
}
