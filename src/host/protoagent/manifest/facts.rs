//! What install needs from a valid protoAgent manifest: the capabilities it
//! asks for and its `requires_pip` requirements, read as the host reads them.

use crate::manifest::Facts;
use crate::manifest::doc::{Node, Value};
use crate::manifest::pyval::{py_str, truthy};

/// The install facts of the (valid) manifest `doc`.
pub(super) fn install_facts(doc: &Node) -> Facts {
    let capabilities = doc
        .get("capabilities")
        .and_then(|e| e.node.as_table())
        .map(|t| t.iter().map(|e| e.key.to_string()).collect())
        .unwrap_or_default();
    let (pip, optional_pip) = pip_requirements(doc);
    Facts {
        capabilities,
        pip,
        optional_pip,
        ..Facts::default()
    }
}

/// `requires_pip`: (hard, optional) requirement strings. A mapping item is
/// `{pkg, optional}`; one without a usable `pkg` is skipped, as the host does.
fn pip_requirements(doc: &Node) -> (Vec<String>, Vec<String>) {
    let (mut hard, mut optional) = (Vec::new(), Vec::new());
    if let Some(Value::Array(items)) = doc.get("requires_pip").map(|e| &e.node.value) {
        for item in items {
            match &item.value {
                Value::Table(_) => {
                    let pkg = item
                        .get("pkg")
                        .map(|p| py_str(&p.node).trim().to_owned())
                        .unwrap_or_default();
                    if pkg.is_empty() || pkg == "None" {
                        continue;
                    }
                    if item.get("optional").is_some_and(|o| truthy(&o.node)) {
                        optional.push(pkg);
                    } else {
                        hard.push(pkg);
                    }
                }
                _ => hard.push(py_str(item)),
            }
        }
    }
    (hard, optional)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::format::parse_yaml;

    #[test]
    fn capabilities_and_pip_as_the_host_reads_them() {
        let doc = parse_yaml(
            "id: x\nname: X\ncapabilities: {net: true, fs: false}\nrequires_pip:\n  - httpx>=0.27\n  - {pkg: ' rich ', optional: yes}\n  - {pkg: null}\n  - {optional: true}\n  - 3\n",
        )
        .unwrap();
        let f = install_facts(&doc);
        assert_eq!(f.capabilities, ["net", "fs"]);
        assert_eq!(f.pip, ["httpx>=0.27", "3"]);
        assert_eq!(f.optional_pip, ["rich"]);
    }
}
