//! The keys protoAgent's `plugin.schema.json` declares (`crate::manifest::keys`),
//! compiled in (`crate::manifest::static_json`): written by
//! `host::protoagent::manifest::lint::keys::tests::the_compiled_keys_are_the_schemas`
//! with `SNAPSHOTS=overwrite`, which fails when they differ from the schema.

use crate::manifest::static_json::StaticJson as J;

pub(super) static KEYS: J = J::Object(&[
    ("properties", J::Object(&[
        ("id", J::Object(&[])),
        ("name", J::Object(&[])),
        ("version", J::Object(&[])),
        ("description", J::Object(&[])),
        ("enabled", J::Object(&[])),
        ("builtin", J::Object(&[])),
        ("entrypoint", J::Object(&[])),
        ("requires_env", J::Object(&[("items", J::Object(&[]))])),
        ("capabilities", J::Object(&[])),
        ("config_section", J::Object(&[])),
        ("config", J::Object(&[])),
        ("secrets", J::Object(&[("items", J::Object(&[]))])),
        ("settings", J::Object(&[
            ("items", J::Object(&[
                ("properties", J::Object(&[
                    ("key", J::Object(&[])),
                    ("label", J::Object(&[])),
                    ("type", J::Object(&[])),
                    ("description", J::Object(&[])),
                    ("restart", J::Object(&[])),
                    ("options", J::Object(&[])),
                    ("minimum", J::Object(&[])),
                    ("maximum", J::Object(&[])),
                    ("group", J::Object(&[])),
                    ("path_kind", J::Object(&[])),
                    ("depends_on", J::Object(&[
                        ("properties", J::Object(&[
                            ("key", J::Object(&[])),
                            ("equals", J::Object(&[])),
                            ("in", J::Object(&[])),
                        ])),
                    ])),
                    ("required", J::Object(&[])),
                    ("tab", J::Object(&[])),
                    ("multiple", J::Object(&[])),
                    ("spawns", J::Object(&[])),
                ])),
            ])),
        ])),
        ("settings_tabs", J::Object(&[
            ("items", J::Object(&[
                ("properties", J::Object(&[
                    ("id", J::Object(&[])),
                    ("label", J::Object(&[])),
                    ("path", J::Object(&[])),
                    ("apply", J::Object(&[])),
                ])),
            ])),
        ])),
        ("test", J::Object(&[])),
        ("guide_url", J::Object(&[])),
        ("views", J::Object(&[
            ("items", J::Object(&[
                ("properties", J::Object(&[
                    ("id", J::Object(&[])),
                    ("path", J::Object(&[])),
                    ("label", J::Object(&[])),
                    ("icon", J::Object(&[])),
                    ("placement", J::Object(&[])),
                    ("palette", J::Object(&[])),
                    ("utility", J::Object(&[])),
                    ("slot", J::Object(&[])),
                    ("tabs", J::Object(&[])),
                ])),
            ])),
        ])),
        ("commands", J::Object(&[
            ("items", J::Object(&[
                ("properties", J::Object(&[
                    ("id", J::Object(&[])),
                    ("title", J::Object(&[])),
                    ("hint", J::Object(&[])),
                    ("icon", J::Object(&[])),
                    ("group", J::Object(&[])),
                    ("keywords", J::Object(&[("items", J::Object(&[]))])),
                    ("action", J::Object(&[
                        ("properties", J::Object(&[
                            ("type", J::Object(&[])),
                            ("view", J::Object(&[])),
                            ("route", J::Object(&[])),
                            ("method", J::Object(&[])),
                            ("topic", J::Object(&[])),
                            ("data", J::Object(&[])),
                            ("command", J::Object(&[])),
                        ])),
                    ])),
                    ("provider", J::Object(&[
                        ("properties", J::Object(&[
                            ("route", J::Object(&[])),
                            ("result_action", J::Object(&[
                                ("properties", J::Object(&[
                                    ("type", J::Object(&[])),
                                    ("view", J::Object(&[])),
                                    ("route", J::Object(&[])),
                                    ("method", J::Object(&[])),
                                    ("topic", J::Object(&[])),
                                    ("data", J::Object(&[])),
                                    ("command", J::Object(&[])),
                                ])),
                            ])),
                        ])),
                    ])),
                ])),
            ])),
        ])),
        ("public_paths", J::Object(&[("items", J::Object(&[]))])),
        ("federation_paths", J::Object(&[("items", J::Object(&[]))])),
        ("emits", J::Object(&[("items", J::Object(&[]))])),
        ("subscribes", J::Object(&[("items", J::Object(&[]))])),
        ("requires_pip", J::Object(&[("items", J::Object(&[]))])),
        ("requires_runtimes", J::Object(&[("properties", J::Object(&[("node", J::Object(&[]))]))])),
        ("repository", J::Object(&[])),
        ("homepage", J::Object(&[])),
        ("min_protoagent_version", J::Object(&[])),
        ("supersedes", J::Object(&[("items", J::Object(&[]))])),
        ("enables", J::Object(&[("items", J::Object(&[]))])),
    ])),
]);
