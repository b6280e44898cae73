//! The keys protoAgent's `plugin.schema.json` declares (`crate::manifest::keys`), written by
//! `host::protoagent::manifest::lint::keys::tests::the_compiled_keys_are_the_schemas`
//! with `SNAPSHOTS=overwrite`: that test fails when they differ from the schema's.

use crate::manifest::keys::Keys;

pub(super) static KEYS: Keys = Keys {
    props: Some(&[
        ("id", Keys::ANY),
        ("name", Keys::ANY),
        ("version", Keys::ANY),
        ("description", Keys::ANY),
        ("enabled", Keys::ANY),
        ("builtin", Keys::ANY),
        ("entrypoint", Keys::ANY),
        ("requires_env", Keys {
            props: None,
            closed: false,
            items: Some(&Keys::ANY),
        }),
        ("capabilities", Keys::ANY),
        ("config_section", Keys::ANY),
        ("config", Keys::ANY),
        ("secrets", Keys {
            props: None,
            closed: false,
            items: Some(&Keys::ANY),
        }),
        ("settings", Keys {
            props: None,
            closed: false,
            items: Some(&Keys {
                props: Some(&[
                    ("key", Keys::ANY),
                    ("label", Keys::ANY),
                    ("type", Keys::ANY),
                    ("description", Keys::ANY),
                    ("restart", Keys::ANY),
                    ("options", Keys::ANY),
                    ("minimum", Keys::ANY),
                    ("maximum", Keys::ANY),
                    ("group", Keys::ANY),
                    ("path_kind", Keys::ANY),
                    ("depends_on", Keys {
                        props: Some(&[
                            ("key", Keys::ANY),
                            ("equals", Keys::ANY),
                            ("in", Keys::ANY),
                        ]),
                        closed: false,
                        items: None,
                    }),
                    ("required", Keys::ANY),
                    ("tab", Keys::ANY),
                    ("multiple", Keys::ANY),
                    ("spawns", Keys::ANY),
                ]),
                closed: false,
                items: None,
            }),
        }),
        ("settings_tabs", Keys {
            props: None,
            closed: false,
            items: Some(&Keys {
                props: Some(&[
                    ("id", Keys::ANY),
                    ("label", Keys::ANY),
                    ("path", Keys::ANY),
                    ("apply", Keys::ANY),
                ]),
                closed: false,
                items: None,
            }),
        }),
        ("test", Keys::ANY),
        ("guide_url", Keys::ANY),
        ("views", Keys {
            props: None,
            closed: false,
            items: Some(&Keys {
                props: Some(&[
                    ("id", Keys::ANY),
                    ("path", Keys::ANY),
                    ("label", Keys::ANY),
                    ("icon", Keys::ANY),
                    ("placement", Keys::ANY),
                    ("palette", Keys::ANY),
                    ("utility", Keys::ANY),
                    ("slot", Keys::ANY),
                    ("tabs", Keys::ANY),
                ]),
                closed: false,
                items: None,
            }),
        }),
        ("commands", Keys {
            props: None,
            closed: false,
            items: Some(&Keys {
                props: Some(&[
                    ("id", Keys::ANY),
                    ("title", Keys::ANY),
                    ("hint", Keys::ANY),
                    ("icon", Keys::ANY),
                    ("group", Keys::ANY),
                    ("keywords", Keys {
                        props: None,
                        closed: false,
                        items: Some(&Keys::ANY),
                    }),
                    ("action", Keys {
                        props: Some(&[
                            ("type", Keys::ANY),
                            ("view", Keys::ANY),
                            ("route", Keys::ANY),
                            ("method", Keys::ANY),
                            ("topic", Keys::ANY),
                            ("data", Keys::ANY),
                            ("command", Keys::ANY),
                        ]),
                        closed: false,
                        items: None,
                    }),
                    ("provider", Keys {
                        props: Some(&[
                            ("route", Keys::ANY),
                            ("result_action", Keys {
                                props: Some(&[
                                    ("type", Keys::ANY),
                                    ("view", Keys::ANY),
                                    ("route", Keys::ANY),
                                    ("method", Keys::ANY),
                                    ("topic", Keys::ANY),
                                    ("data", Keys::ANY),
                                    ("command", Keys::ANY),
                                ]),
                                closed: false,
                                items: None,
                            }),
                        ]),
                        closed: false,
                        items: None,
                    }),
                ]),
                closed: false,
                items: None,
            }),
        }),
        ("public_paths", Keys {
            props: None,
            closed: false,
            items: Some(&Keys::ANY),
        }),
        ("federation_paths", Keys {
            props: None,
            closed: false,
            items: Some(&Keys::ANY),
        }),
        ("emits", Keys {
            props: None,
            closed: false,
            items: Some(&Keys::ANY),
        }),
        ("subscribes", Keys {
            props: None,
            closed: false,
            items: Some(&Keys::ANY),
        }),
        ("requires_pip", Keys {
            props: None,
            closed: false,
            items: Some(&Keys::ANY),
        }),
        ("requires_runtimes", Keys {
            props: Some(&[
                ("node", Keys::ANY),
            ]),
            closed: false,
            items: None,
        }),
        ("repository", Keys::ANY),
        ("homepage", Keys::ANY),
        ("min_protoagent_version", Keys::ANY),
        ("supersedes", Keys {
            props: None,
            closed: false,
            items: Some(&Keys::ANY),
        }),
        ("enables", Keys {
            props: None,
            closed: false,
            items: Some(&Keys::ANY),
        }),
    ]),
    closed: false,
    items: None,
};
