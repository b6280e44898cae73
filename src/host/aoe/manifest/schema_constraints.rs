//! The constraints of aoe's manifest schema (`plugins schema aoe`) per host profile,
//! compiled in (`crate::manifest::static_json`): written by
//! `host::aoe::manifest::tests::the_compiled_constraints_are_the_schemas`
//! with `SNAPSHOTS=overwrite`, which fails when they differ from the schema.

use crate::manifest::static_json::StaticJson as J;

const ID: J = J::Object(&[
    ("type", J::Str("string")),
    ("pattern", J::Str("^[a-z][a-z0-9-]*(\\.[a-z][a-z0-9-]*)*$")),
    ("maxLength", J::Int(64)),
]);

const API_VERSION: J = J::Object(&[("type", J::Str("integer")), ("minimum", J::Int(0)), ("maximum", J::Int(4294967295))]);

const SCREENSHOTS: J = J::Object(&[
    ("type", J::Str("array")),
    ("items", J::Object(&[
        ("type", J::Str("object")),
        ("required", J::Array(&[J::Str("path"), J::Str("alt")])),
        ("additionalProperties", J::Bool(false)),
        ("properties", J::Object(&[
            ("path", J::Object(&[("type", J::Str("string"))])),
            ("alt", J::Object(&[("type", J::Str("string"))])),
            ("caption", J::Object(&[("type", J::Str("string"))])),
        ])),
    ])),
]);

const KEYBINDS: J = J::Object(&[
    ("type", J::Str("array")),
    ("items", J::Object(&[
        ("type", J::Str("object")),
        ("required", J::Array(&[J::Str("command"), J::Str("key")])),
        ("properties", J::Object(&[
            ("command", J::Object(&[("type", J::Str("string"))])),
            ("key", J::Object(&[("type", J::Str("string"))])),
        ])),
    ])),
]);

const THEMES: J = J::Object(&[
    ("type", J::Str("array")),
    ("items", J::Object(&[
        ("type", J::Str("object")),
        ("required", J::Array(&[J::Str("name"), J::Str("path")])),
        ("properties", J::Object(&[
            ("name", J::Object(&[("type", J::Str("string"))])),
            ("path", J::Object(&[("type", J::Str("string"))])),
        ])),
    ])),
]);

const STATUS: J = J::Object(&[
    ("type", J::Str("array")),
    ("items", J::Object(&[
        ("type", J::Str("object")),
        ("required", J::Array(&[J::Str("id")])),
        ("properties", J::Object(&[
            ("id", J::Object(&[("type", J::Str("string"))])),
            ("label", J::Object(&[("type", J::Str("string"))])),
        ])),
    ])),
]);

const RUNTIME: J = J::Object(&[
    ("type", J::Str("object")),
    ("required", J::Array(&[J::Str("kind")])),
    ("properties", J::Object(&[
        ("kind", J::Object(&[("enum", J::Array(&[J::Str("command"), J::Str("release-binary")]))])),
        ("command", J::Object(&[("type", J::Str("array")), ("items", J::Object(&[("type", J::Str("string"))]))])),
        ("system", J::Object(&[("type", J::Str("boolean"))])),
        ("build", J::Object(&[
            ("type", J::Str("array")),
            ("items", J::Object(&[
                ("type", J::Str("object")),
                ("required", J::Array(&[J::Str("command")])),
                ("additionalProperties", J::Bool(false)),
                ("properties", J::Object(&[
                    ("command", J::Object(&[
                        ("type", J::Str("array")),
                        ("items", J::Object(&[("type", J::Str("string"))])),
                    ])),
                    ("platforms", J::Object(&[
                        ("type", J::Str("array")),
                        ("items", J::Object(&[("type", J::Str("string"))])),
                    ])),
                ])),
            ])),
        ])),
        ("asset", J::Object(&[("type", J::Str("string"))])),
        ("bin", J::Object(&[("type", J::Str("string"))])),
    ])),
    ("allOf", J::Array(&[
        J::Object(&[
            ("if", J::Object(&[
                ("required", J::Array(&[J::Str("kind")])),
                ("properties", J::Object(&[("kind", J::Object(&[("const", J::Str("command"))]))])),
            ])),
            ("then", J::Object(&[("required", J::Array(&[J::Str("command")]))])),
        ]),
        J::Object(&[
            ("if", J::Object(&[
                ("required", J::Array(&[J::Str("kind")])),
                ("properties", J::Object(&[("kind", J::Object(&[("const", J::Str("release-binary"))]))])),
            ])),
            ("then", J::Object(&[("required", J::Array(&[J::Str("asset")]))])),
        ]),
    ])),
]);

pub(super) static H12: J = J::Object(&[
    ("type", J::Str("object")),
    ("required", J::Array(&[J::Str("id"), J::Str("name"), J::Str("version"), J::Str("api_version")])),
    ("additionalProperties", J::Bool(false)),
    ("properties", J::Object(&[
        ("id", ID),
        ("name", J::Object(&[("type", J::Str("string"))])),
        ("version", J::Object(&[("type", J::Str("string"))])),
        ("api_version", API_VERSION),
        ("description", J::Object(&[("type", J::Str("string"))])),
        ("screenshots", SCREENSHOTS),
        ("icon", J::Object(&[("type", J::Str("string"))])),
        ("icon_asset", J::Object(&[("type", J::Str("string"))])),
        ("capabilities", J::Object(&[("type", J::Str("array")), ("items", J::Object(&[("type", J::Str("string"))]))])),
        ("commands", J::Object(&[
            ("type", J::Str("array")),
            ("items", J::Object(&[
                ("type", J::Str("object")),
                ("required", J::Array(&[J::Str("id")])),
                ("properties", J::Object(&[
                    ("id", J::Object(&[("type", J::Str("string"))])),
                    ("title", J::Object(&[("type", J::Str("string"))])),
                    ("description", J::Object(&[("type", J::Str("string"))])),
                    ("action", J::Object(&[
                        ("type", J::Str("object")),
                        ("required", J::Array(&[J::Str("kind"), J::Str("slot"), J::Str("id")])),
                        ("properties", J::Object(&[
                            ("kind", J::Object(&[("enum", J::Array(&[J::Str("open-ui-link")]))])),
                            ("slot", J::Object(&[
                                ("enum", J::Array(&[
                                    J::Str("status-bar"), J::Str("row-badge"), J::Str("row-column"),
                                    J::Str("sort-key"), J::Str("filter-facet"), J::Str("card"),
                                    J::Str("pane"), J::Str("composer-action"),
                                    J::Str("detail-badge"), J::Str("settings-page"),
                                    J::Str("tool-card-badge"), J::Str("notification"),
                                ])),
                            ])),
                            ("id", J::Object(&[("type", J::Str("string"))])),
                        ])),
                    ])),
                ])),
            ])),
        ])),
        ("keybinds", KEYBINDS),
        ("settings", J::Object(&[
            ("type", J::Str("array")),
            ("items", J::Object(&[
                ("type", J::Str("object")),
                ("required", J::Array(&[J::Str("key")])),
                ("properties", J::Object(&[
                    ("key", J::Object(&[("type", J::Str("string"))])),
                    ("label", J::Object(&[("type", J::Str("string"))])),
                    ("description", J::Object(&[("type", J::Str("string"))])),
                    ("type", J::Object(&[
                        ("enum", J::Array(&[
                            J::Str("string"), J::Str("bool"), J::Str("boolean"), J::Str("integer"),
                            J::Str("select"), J::Str("dynamic_select"), J::Str("object_list"),
                            J::Str("cron"),
                        ])),
                    ])),
                    ("options", J::Object(&[
                        ("type", J::Str("array")),
                        ("items", J::Object(&[("type", J::Str("string"))])),
                    ])),
                    ("min", J::Object(&[("type", J::Str("integer"))])),
                    ("max", J::Object(&[("type", J::Str("integer"))])),
                    ("default", J::Object(&[])),
                    ("advanced", J::Object(&[("type", J::Str("boolean"))])),
                    ("multiline", J::Object(&[("type", J::Str("boolean"))])),
                    ("option_source", J::Object(&[
                        ("enum", J::Array(&[
                            J::Str("acp.agents"), J::Str("acp.models"), J::Str("acp.modes"),
                            J::Str("projects"), J::Str("groups"),
                        ])),
                    ])),
                    ("depends_on", J::Object(&[
                        ("type", J::Str("array")),
                        ("items", J::Object(&[("type", J::Str("string"))])),
                    ])),
                    ("fields", J::Object(&[
                        ("type", J::Str("array")),
                        ("items", J::Object(&[
                            ("type", J::Str("object")),
                            ("required", J::Array(&[J::Str("key")])),
                            ("properties", J::Object(&[
                                ("key", J::Object(&[("type", J::Str("string"))])),
                                ("label", J::Object(&[("type", J::Str("string"))])),
                                ("description", J::Object(&[("type", J::Str("string"))])),
                                ("type", J::Object(&[
                                    ("enum", J::Array(&[
                                        J::Str("string"), J::Str("bool"), J::Str("boolean"),
                                        J::Str("integer"), J::Str("select"),
                                        J::Str("dynamic_select"), J::Str("dynamic_multi_select"),
                                        J::Str("cron"),
                                    ])),
                                ])),
                                ("required", J::Object(&[("type", J::Str("boolean"))])),
                                ("multiline", J::Object(&[("type", J::Str("boolean"))])),
                                ("options", J::Object(&[
                                    ("type", J::Str("array")),
                                    ("items", J::Object(&[("type", J::Str("string"))])),
                                ])),
                                ("min", J::Object(&[("type", J::Str("integer"))])),
                                ("max", J::Object(&[("type", J::Str("integer"))])),
                                ("default", J::Object(&[])),
                                ("option_source", J::Object(&[
                                    ("enum", J::Array(&[
                                        J::Str("acp.agents"), J::Str("acp.models"),
                                        J::Str("acp.modes"), J::Str("projects"), J::Str("groups"),
                                    ])),
                                ])),
                                ("depends_on", J::Object(&[
                                    ("type", J::Str("array")),
                                    ("items", J::Object(&[("type", J::Str("string"))])),
                                ])),
                            ])),
                        ])),
                    ])),
                    ("item_id_key", J::Object(&[("type", J::Str("string"))])),
                    ("min_items", J::Object(&[
                        ("type", J::Str("integer")),
                        ("minimum", J::Int(0)),
                        ("maximum", J::Int(4294967295)),
                    ])),
                    ("max_items", J::Object(&[
                        ("type", J::Str("integer")),
                        ("minimum", J::Int(0)),
                        ("maximum", J::Int(4294967295)),
                    ])),
                ])),
            ])),
        ])),
        ("setting_defaults", J::Object(&[("type", J::Str("object"))])),
        ("themes", THEMES),
        ("status", STATUS),
        ("ui", J::Object(&[
            ("type", J::Str("array")),
            ("items", J::Object(&[
                ("type", J::Str("object")),
                ("required", J::Array(&[J::Str("slot")])),
                ("properties", J::Object(&[
                    ("slot", J::Object(&[
                        ("enum", J::Array(&[
                            J::Str("status-bar"), J::Str("row-badge"), J::Str("row-column"),
                            J::Str("sort-key"), J::Str("filter-facet"), J::Str("card"),
                            J::Str("pane"), J::Str("composer-action"), J::Str("detail-badge"),
                            J::Str("settings-page"), J::Str("tool-card-badge"),
                            J::Str("notification"),
                        ])),
                    ])),
                    ("id", J::Object(&[("type", J::Str("string"))])),
                ])),
            ])),
        ])),
        ("runtime", RUNTIME),
        ("aoe_version", J::Object(&[("type", J::Str("string"))])),
    ])),
]);

pub(super) static H15: J = J::Object(&[
    ("type", J::Str("object")),
    ("required", J::Array(&[J::Str("id"), J::Str("name"), J::Str("version"), J::Str("api_version")])),
    ("additionalProperties", J::Bool(false)),
    ("properties", J::Object(&[
        ("id", ID),
        ("name", J::Object(&[("type", J::Str("string"))])),
        ("version", J::Object(&[("type", J::Str("string"))])),
        ("api_version", API_VERSION),
        ("description", J::Object(&[("type", J::Str("string"))])),
        ("screenshots", SCREENSHOTS),
        ("icon", J::Object(&[("type", J::Str("string"))])),
        ("icon_asset", J::Object(&[("type", J::Str("string"))])),
        ("capabilities", J::Object(&[("type", J::Str("array")), ("items", J::Object(&[("type", J::Str("string"))]))])),
        ("commands", J::Object(&[
            ("type", J::Str("array")),
            ("items", J::Object(&[
                ("type", J::Str("object")),
                ("required", J::Array(&[J::Str("id")])),
                ("properties", J::Object(&[
                    ("id", J::Object(&[("type", J::Str("string"))])),
                    ("title", J::Object(&[("type", J::Str("string"))])),
                    ("description", J::Object(&[("type", J::Str("string"))])),
                    ("action", J::Object(&[
                        ("type", J::Str("object")),
                        ("required", J::Array(&[J::Str("kind"), J::Str("slot"), J::Str("id")])),
                        ("properties", J::Object(&[
                            ("kind", J::Object(&[("enum", J::Array(&[J::Str("open-ui-link")]))])),
                            ("slot", J::Object(&[
                                ("enum", J::Array(&[
                                    J::Str("status-bar"), J::Str("row-badge"), J::Str("row-column"),
                                    J::Str("sort-key"), J::Str("filter-facet"), J::Str("card"),
                                    J::Str("pane"), J::Str("composer-action"),
                                    J::Str("detail-badge"), J::Str("home-pane"),
                                    J::Str("notification"),
                                ])),
                            ])),
                            ("id", J::Object(&[("type", J::Str("string"))])),
                        ])),
                    ])),
                ])),
            ])),
        ])),
        ("keybinds", KEYBINDS),
        ("settings", J::Object(&[
            ("type", J::Str("array")),
            ("items", J::Object(&[
                ("type", J::Str("object")),
                ("required", J::Array(&[J::Str("key")])),
                ("properties", J::Object(&[
                    ("key", J::Object(&[("type", J::Str("string"))])),
                    ("label", J::Object(&[("type", J::Str("string"))])),
                    ("description", J::Object(&[("type", J::Str("string"))])),
                    ("type", J::Object(&[
                        ("enum", J::Array(&[
                            J::Str("string"), J::Str("bool"), J::Str("boolean"), J::Str("integer"),
                            J::Str("select"), J::Str("dynamic_select"), J::Str("object_list"),
                            J::Str("cron"), J::Str("string_list"),
                        ])),
                    ])),
                    ("options", J::Object(&[
                        ("type", J::Str("array")),
                        ("items", J::Object(&[("type", J::Str("string"))])),
                    ])),
                    ("min", J::Object(&[("type", J::Str("integer"))])),
                    ("max", J::Object(&[("type", J::Str("integer"))])),
                    ("default", J::Object(&[])),
                    ("advanced", J::Object(&[("type", J::Str("boolean"))])),
                    ("multiline", J::Object(&[("type", J::Str("boolean"))])),
                    ("option_source", J::Object(&[
                        ("enum", J::Array(&[
                            J::Str("acp.agents"), J::Str("acp.models"), J::Str("acp.modes"),
                            J::Str("projects"), J::Str("groups"),
                        ])),
                    ])),
                    ("depends_on", J::Object(&[
                        ("type", J::Str("array")),
                        ("items", J::Object(&[("type", J::Str("string"))])),
                    ])),
                    ("fields", J::Object(&[
                        ("type", J::Str("array")),
                        ("items", J::Object(&[
                            ("type", J::Str("object")),
                            ("required", J::Array(&[J::Str("key")])),
                            ("properties", J::Object(&[
                                ("key", J::Object(&[("type", J::Str("string"))])),
                                ("label", J::Object(&[("type", J::Str("string"))])),
                                ("description", J::Object(&[("type", J::Str("string"))])),
                                ("type", J::Object(&[
                                    ("enum", J::Array(&[
                                        J::Str("string"), J::Str("bool"), J::Str("boolean"),
                                        J::Str("integer"), J::Str("select"),
                                        J::Str("dynamic_select"), J::Str("dynamic_multi_select"),
                                        J::Str("cron"), J::Str("string_list"),
                                    ])),
                                ])),
                                ("required", J::Object(&[("type", J::Str("boolean"))])),
                                ("multiline", J::Object(&[("type", J::Str("boolean"))])),
                                ("options", J::Object(&[
                                    ("type", J::Str("array")),
                                    ("items", J::Object(&[("type", J::Str("string"))])),
                                ])),
                                ("min", J::Object(&[("type", J::Str("integer"))])),
                                ("max", J::Object(&[("type", J::Str("integer"))])),
                                ("default", J::Object(&[])),
                                ("option_source", J::Object(&[
                                    ("enum", J::Array(&[
                                        J::Str("acp.agents"), J::Str("acp.models"),
                                        J::Str("acp.modes"), J::Str("projects"), J::Str("groups"),
                                    ])),
                                ])),
                                ("depends_on", J::Object(&[
                                    ("type", J::Str("array")),
                                    ("items", J::Object(&[("type", J::Str("string"))])),
                                ])),
                            ])),
                        ])),
                    ])),
                    ("item_id_key", J::Object(&[("type", J::Str("string"))])),
                    ("min_items", J::Object(&[
                        ("type", J::Str("integer")),
                        ("minimum", J::Int(0)),
                        ("maximum", J::Int(4294967295)),
                    ])),
                    ("max_items", J::Object(&[
                        ("type", J::Str("integer")),
                        ("minimum", J::Int(0)),
                        ("maximum", J::Int(4294967295)),
                    ])),
                ])),
            ])),
        ])),
        ("setting_defaults", J::Object(&[("type", J::Str("object"))])),
        ("themes", THEMES),
        ("status", STATUS),
        ("ui", J::Object(&[
            ("type", J::Str("array")),
            ("items", J::Object(&[
                ("type", J::Str("object")),
                ("required", J::Array(&[J::Str("slot")])),
                ("properties", J::Object(&[
                    ("slot", J::Object(&[
                        ("enum", J::Array(&[
                            J::Str("status-bar"), J::Str("row-badge"), J::Str("row-column"),
                            J::Str("sort-key"), J::Str("filter-facet"), J::Str("card"),
                            J::Str("pane"), J::Str("composer-action"), J::Str("detail-badge"),
                            J::Str("home-pane"), J::Str("notification"),
                        ])),
                    ])),
                    ("id", J::Object(&[("type", J::Str("string"))])),
                ])),
            ])),
        ])),
        ("runtime", RUNTIME),
        ("aoe_version", J::Object(&[("type", J::Str("string"))])),
    ])),
]);
