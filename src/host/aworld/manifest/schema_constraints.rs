//! The constraints of AWorld's `plugin.schema.json`,
//! compiled in (`crate::manifest::static_json`): written by
//! `host::aworld::manifest::tests::the_compiled_constraints_are_the_schemas`
//! with `SNAPSHOTS=overwrite`, which fails when they differ from the schema.

use crate::manifest::static_json::StaticJson as J;

pub(super) static SCHEMA: J = J::Object(&[
    ("type", J::Str("object")),
    ("required", J::Array(&[J::Str("id"), J::Str("version")])),
    ("properties", J::Object(&[
        ("id", J::Object(&[("type", J::Str("string")), ("minLength", J::Int(1))])),
        ("name", J::Object(&[("type", J::Str("string"))])),
        ("version", J::Object(&[("type", J::Str("string")), ("minLength", J::Int(1))])),
        ("activation_scope", J::Object(&[
            ("type", J::Str("string")),
            ("enum", J::Array(&[J::Str("workspace"), J::Str("session"), J::Str("global")])),
        ])),
        ("source", J::Object(&[("type", J::Str("object"))])),
        ("policy", J::Object(&[("type", J::Str("object"))])),
        ("dependencies", J::Object(&[("type", J::Str("array")), ("items", J::Object(&[("type", J::Str("string"))]))])),
        ("conflicts", J::Object(&[("type", J::Str("array")), ("items", J::Object(&[("type", J::Str("string"))]))])),
        ("lifecycle", J::Object(&[("type", J::Str("array")), ("items", J::Object(&[("type", J::Str("string"))]))])),
        ("entrypoints", J::Object(&[
            ("type", J::Str("object")),
            ("additionalProperties", J::Object(&[
                ("type", J::Str("array")),
                ("items", J::Object(&[
                    ("type", J::Str("object")),
                    ("required", J::Array(&[J::Str("id")])),
                    ("properties", J::Object(&[
                        ("id", J::Object(&[("type", J::Str("string")), ("minLength", J::Int(1))])),
                        ("name", J::Object(&[("type", J::Str("string"))])),
                        ("target", J::Object(&[("type", J::Str("string"))])),
                        ("scope", J::Object(&[("type", J::Str("string"))])),
                        ("visibility", J::Object(&[("type", J::Str("string"))])),
                        ("description", J::Object(&[("type", J::Str("string"))])),
                        ("metadata", J::Object(&[("type", J::Str("object"))])),
                        ("permissions", J::Object(&[("type", J::Str("object"))])),
                    ])),
                    ("additionalProperties", J::Bool(true)),
                ])),
            ])),
        ])),
    ])),
    ("additionalProperties", J::Bool(true)),
]);
