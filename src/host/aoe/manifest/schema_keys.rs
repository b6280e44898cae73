//! The keys aoe's manifest schema (`plugins schema aoe`) declares (`crate::manifest::keys`), written by
//! `host::aoe::manifest::tests::the_compiled_keys_are_the_schemas`
//! with `SNAPSHOTS=overwrite`: that test fails when they differ from the schema's.

use crate::manifest::keys::Keys;

pub(super) static KEYS: Keys = Keys {
    props: Some(&[
        ("id", Keys::ANY),
        ("name", Keys::ANY),
        ("version", Keys::ANY),
        ("api_version", Keys::ANY),
        ("description", Keys::ANY),
        ("screenshots", Keys {
            props: None,
            closed: false,
            items: Some(&Keys {
                props: Some(&[
                    ("path", Keys::ANY),
                    ("alt", Keys::ANY),
                    ("caption", Keys::ANY),
                ]),
                closed: true,
                items: None,
            }),
        }),
        ("icon", Keys::ANY),
        ("icon_asset", Keys::ANY),
        ("capabilities", Keys {
            props: None,
            closed: false,
            items: Some(&Keys::ANY),
        }),
        ("commands", Keys {
            props: None,
            closed: false,
            items: Some(&Keys {
                props: Some(&[
                    ("id", Keys::ANY),
                    ("title", Keys::ANY),
                    ("description", Keys::ANY),
                    ("action", Keys {
                        props: Some(&[
                            ("kind", Keys::ANY),
                            ("slot", Keys::ANY),
                            ("id", Keys::ANY),
                        ]),
                        closed: false,
                        items: None,
                    }),
                ]),
                closed: false,
                items: None,
            }),
        }),
        ("keybinds", Keys {
            props: None,
            closed: false,
            items: Some(&Keys {
                props: Some(&[
                    ("command", Keys::ANY),
                    ("key", Keys::ANY),
                ]),
                closed: false,
                items: None,
            }),
        }),
        ("settings", Keys {
            props: None,
            closed: false,
            items: Some(&Keys {
                props: Some(&[
                    ("key", Keys::ANY),
                    ("label", Keys::ANY),
                    ("description", Keys::ANY),
                    ("type", Keys::ANY),
                    ("options", Keys {
                        props: None,
                        closed: false,
                        items: Some(&Keys::ANY),
                    }),
                    ("min", Keys::ANY),
                    ("max", Keys::ANY),
                    ("default", Keys::ANY),
                    ("advanced", Keys::ANY),
                    ("multiline", Keys::ANY),
                    ("option_source", Keys::ANY),
                    ("depends_on", Keys {
                        props: None,
                        closed: false,
                        items: Some(&Keys::ANY),
                    }),
                    ("fields", Keys {
                        props: None,
                        closed: false,
                        items: Some(&Keys {
                            props: Some(&[
                                ("key", Keys::ANY),
                                ("label", Keys::ANY),
                                ("description", Keys::ANY),
                                ("type", Keys::ANY),
                                ("required", Keys::ANY),
                                ("multiline", Keys::ANY),
                                ("options", Keys {
                                    props: None,
                                    closed: false,
                                    items: Some(&Keys::ANY),
                                }),
                                ("min", Keys::ANY),
                                ("max", Keys::ANY),
                                ("default", Keys::ANY),
                                ("option_source", Keys::ANY),
                                ("depends_on", Keys {
                                    props: None,
                                    closed: false,
                                    items: Some(&Keys::ANY),
                                }),
                            ]),
                            closed: false,
                            items: None,
                        }),
                    }),
                    ("item_id_key", Keys::ANY),
                    ("min_items", Keys::ANY),
                    ("max_items", Keys::ANY),
                ]),
                closed: false,
                items: None,
            }),
        }),
        ("setting_defaults", Keys::ANY),
        ("themes", Keys {
            props: None,
            closed: false,
            items: Some(&Keys {
                props: Some(&[
                    ("name", Keys::ANY),
                    ("path", Keys::ANY),
                ]),
                closed: false,
                items: None,
            }),
        }),
        ("status", Keys {
            props: None,
            closed: false,
            items: Some(&Keys {
                props: Some(&[
                    ("id", Keys::ANY),
                    ("label", Keys::ANY),
                ]),
                closed: false,
                items: None,
            }),
        }),
        ("ui", Keys {
            props: None,
            closed: false,
            items: Some(&Keys {
                props: Some(&[
                    ("slot", Keys::ANY),
                    ("id", Keys::ANY),
                ]),
                closed: false,
                items: None,
            }),
        }),
        ("runtime", Keys {
            props: Some(&[
                ("kind", Keys::ANY),
                ("command", Keys {
                    props: None,
                    closed: false,
                    items: Some(&Keys::ANY),
                }),
                ("system", Keys::ANY),
                ("build", Keys {
                    props: None,
                    closed: false,
                    items: Some(&Keys {
                        props: Some(&[
                            ("command", Keys {
                                props: None,
                                closed: false,
                                items: Some(&Keys::ANY),
                            }),
                            ("platforms", Keys {
                                props: None,
                                closed: false,
                                items: Some(&Keys::ANY),
                            }),
                        ]),
                        closed: true,
                        items: None,
                    }),
                }),
                ("asset", Keys::ANY),
                ("bin", Keys::ANY),
            ]),
            closed: false,
            items: None,
        }),
        ("aoe_version", Keys::ANY),
    ]),
    closed: true,
    items: None,
};
