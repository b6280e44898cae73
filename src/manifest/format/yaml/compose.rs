//! The composer: granit events to raw nodes with spans, tags and anchors
//! resolved, and the quoted-scalar spans the scanner checks need.

use super::*;

/// A composed node, before construction (PyYAML's node graph).
#[derive(Clone, Debug)]
pub(super) enum Raw {
    Scalar {
        value: String,
        plain: bool,
        tag: Option<String>,
        span: Span,
    },
    Seq {
        items: Vec<Raw>,
        tag: Option<String>,
        span: Span,
    },
    Map {
        pairs: Vec<(Raw, Raw)>,
        tag: Option<String>,
        span: Span,
    },
}

impl Raw {
    pub(super) fn span(&self) -> Span {
        match self {
            Raw::Scalar { span, .. } | Raw::Seq { span, .. } | Raw::Map { span, .. } => {
                span.clone()
            }
        }
    }
    pub(super) fn kind(&self) -> &'static str {
        match self {
            Raw::Scalar { .. } => "scalar",
            Raw::Seq { .. } => "sequence",
            Raw::Map { .. } => "mapping",
        }
    }
    pub(super) fn size(&self) -> usize {
        match self {
            Raw::Scalar { .. } => 1,
            Raw::Seq { items, .. } => 1 + items.iter().map(Raw::size).sum::<usize>(),
            Raw::Map { pairs, .. } => {
                1 + pairs
                    .iter()
                    .map(|(k, v)| k.size() + v.size())
                    .sum::<usize>()
            }
        }
    }
}

pub(super) fn byte_span(span: &PSpan) -> Span {
    let start = span.start.byte_offset().unwrap_or(0);
    let end = span.end.byte_offset().unwrap_or(start).max(start);
    start..end
}

pub(super) fn full_tag(tag: &Tag) -> String {
    format!("{}{}", tag.handle(), tag.suffix())
}

/// Frames of the collection being composed.
pub(super) enum Frame {
    /// Items, tag, anchor, start, and whether it is a flow sequence.
    Seq(Vec<Raw>, Option<String>, usize, usize, bool),
    /// Pairs, a pending key, tag, anchor, start, and whether it is a flow mapping.
    Map(
        Vec<(Raw, Raw)>,
        Option<Raw>,
        Option<String>,
        usize,
        usize,
        bool,
    ),
}

/// Composed document and the byte ranges of its quoted and block scalars
/// (`true` for block scalars).
pub(super) type Composed = (Option<Raw>, Vec<(Span, bool)>);

/// Events into one document's node graph (`None` for an empty stream).
pub(super) fn compose(text: &str) -> Result<Composed, SyntaxError> {
    // libyaml's (and so PyYAML's) readings: a BOM past the start is content,
    // and a block scalar ending the file gets no line feed.
    // Anchor events carry the names PyYAML checks (its name grammar, duplicates).
    let options = serde_saphyr::granit_parser::options! {
        block_scalar_eof_without_line_feed: true,
        bom_inside_document_as_content: true,
        emit_anchor_events: true,
    };
    let mut c = Composer {
        text,
        quoted: Vec::new(),
        anchors: Vec::new(),
        names: std::collections::HashMap::new(),
        stack: Vec::new(),
        root: None,
        documents: 0,
        expanded: 0,
    };
    // Where the last event ended: an anchor or alias PyYAML ends on `:` or `?` may lie
    // between it and the scanner's error (`*a: x` as a later key is "simple key expected
    // ':'" here).
    let mut scanned = 0;
    for event in Parser::new_from_str_with_options(text, options) {
        let (event, span) = event.map_err(|e| {
            let flow = in_flow(&c.stack);
            name_break_before(text, scanned, &e, flow)
                .unwrap_or_else(|| unknown_alias(text, &c.names, &e, flow))
        })?;
        scanned = scanned.max(byte_span(&span).end);
        // An empty plain key may stand for PyYAML's value indicator only if nothing
        // (an anchor) gives it content.
        let mut anchored = false;
        let node = match event {
            Event::DocumentStart(..) => {
                c.document(&span)?;
                continue;
            }
            Event::Anchor(_, name) => {
                c.anchor(&name, &span)?;
                continue;
            }
            Event::Scalar(value, style, anchor, tag) => {
                anchored = anchor != 0;
                c.scalar(value, style, anchor, tag.map(|t| full_tag(&t)), &span)?
            }
            Event::Alias(id) => c.alias(id, &span)?,
            Event::SequenceStart(style, anchor, tag) => {
                let start = byte_span(&span).start;
                c.stack.push(Frame::Seq(
                    Vec::new(),
                    tag.map(|t| full_tag(&t)),
                    anchor,
                    start,
                    style == serde_saphyr::granit_parser::StructureStyle::Flow,
                ));
                continue;
            }
            Event::MappingStart(style, anchor, tag) => {
                let start = byte_span(&span).start;
                c.stack.push(Frame::Map(
                    Vec::new(),
                    None,
                    tag.map(|t| full_tag(&t)),
                    anchor,
                    start,
                    style == serde_saphyr::granit_parser::StructureStyle::Flow,
                ));
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => match c.end(&span) {
                Some(node) => node,
                None => continue,
            },
            _ => continue,
        };
        c.place(node, anchored)?;
    }
    Ok((c.root, c.quoted))
}

/// The state of [`compose`]: one method per kind of node an event starts or ends, and
/// [`Composer::place`] for where a finished node goes.
struct Composer<'t> {
    text: &'t str,
    /// The quoted and block scalars' spans (`true` for block scalars).
    quoted: Vec<(Span, bool)>,
    /// The nodes anchored so far, by anchor id (the latest wins).
    anchors: Vec<(usize, Raw)>,
    /// Each anchor name and where it was first defined.
    names: std::collections::HashMap<String, usize>,
    stack: Vec<Frame>,
    root: Option<Raw>,
    documents: usize,
    /// The nodes aliases have expanded to so far ([`ALIAS_BUDGET`]).
    expanded: usize,
}

impl Composer<'_> {
    /// A document starts: only one is read.
    fn document(&mut self, span: &PSpan) -> Result<(), SyntaxError> {
        let text = self.text;
        self.documents += 1;
        if self.documents > 1 {
            let at = byte_span(span).start;
            return Err(error_at(
                text,
                "expected a single document in the stream",
                at,
            ));
        }
        Ok(())
    }

    /// An anchor's name, checked as PyYAML scans it, and unique in the document.
    fn anchor(&mut self, name: &str, span: &PSpan) -> Result<(), SyntaxError> {
        let text = self.text;
        let at = byte_span(span).start;
        pyyaml_name(text, at, "an anchor")?;
        if name.len() > pyyaml_name_len(text, at) {
            return Err(name_break(text, at, in_flow(&self.stack))
                .unwrap_or_else(|| error_at(text, "an anchor name PyYAML does not scan", at)));
        }
        // PyYAML's composer: one node per anchor name in a document.
        if let Some(first) = self.names.insert(name.to_owned(), at) {
            let (line, column) = line_column(text, first);
            return Err(error_at(
                text,
                &format!(
                    "found duplicate anchor {}; first occurrence at line {line}, column {column}",
                    crate::manifest::pyval::repr_str(&text[at + 1..byte_span(span).end])
                ),
                at,
            ));
        }
        Ok(())
    }

    /// A scalar node, with what PyYAML refuses of a plain one in flow context.
    fn scalar(
        &mut self,
        value: std::borrow::Cow<'_, str>,
        style: ScalarStyle,
        anchor: usize,
        tag: Option<String>,
        span: &PSpan,
    ) -> Result<Raw, SyntaxError> {
        let text = self.text;
        let flow = self.stack.iter().any(|f| match f {
            Frame::Seq(.., flow) | Frame::Map(.., flow) => *flow,
        });
        match style {
            ScalarStyle::Plain => {
                // In flow context PyYAML ends a plain scalar at `?`,
                // then finds a key indicator it cannot parse there.
                let src = &text[byte_span(span)];
                // And a `:` there is always its value indicator, never
                // the start of a plain scalar (`{id: :x}`, `[:x]`).
                if flow && src.starts_with(':') {
                    return Err(flow_colon(text, byte_span(span).start));
                }
                if flow && let Some(q) = src.get(1..).and_then(|r| r.find('?')) {
                    return Err(error_at(
                        text,
                        "while parsing a flow node: found unexpected '?'",
                        byte_span(span).start + 1 + q,
                    ));
                }
            }
            ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                self.quoted.push((byte_span(span), false));
            }
            _ => self.quoted.push((byte_span(span), true)),
        }
        let node = Raw::Scalar {
            value: value.into_owned(),
            plain: style == ScalarStyle::Plain,
            tag,
            span: byte_span(span),
        };
        if anchor != 0 {
            self.anchors.push((anchor, node.clone()));
        }
        Ok(node)
    }

    /// The node an alias names, within the expansion budget.
    fn alias(&mut self, id: usize, span: &PSpan) -> Result<Raw, SyntaxError> {
        let text = self.text;
        let at = byte_span(span).start;
        let alias = &text[byte_span(span)];
        pyyaml_name(text, at, "an alias")?;
        // PyYAML registers a collection's anchor before its content, so
        // `&r [1, *r]` is a list holding itself. A value without end is
        // deliberately not read (docs/PARITY.md): nothing that walks it ends.
        if self.stack.iter().any(|f| match f {
            Frame::Seq(_, _, anchor, ..) | Frame::Map(_, _, _, anchor, ..) => *anchor == id,
        }) {
            return Err(error_at(
                text,
                &format!(
                    "found recursive alias {alias}: it refers to the collection it is inside, a self-referential value PyYAML builds and plugins does not read"
                ),
                at,
            ));
        }
        let node = self
            .anchors
            .iter()
            .rev()
            .find(|(a, _)| *a == id)
            .map(|(_, n)| n.clone())
            .ok_or_else(|| {
                error_at(
                    text,
                    &format!(
                        "found undefined alias {}",
                        crate::manifest::pyval::repr_str(&alias[1..])
                    ),
                    at,
                )
            })?;
        self.expanded += node.size();
        if self.expanded > ALIAS_BUDGET {
            return Err(error_at(
                text,
                "alias expansion budget exceeded (a billion-laughs document?)",
                byte_span(span).start,
            ));
        }
        Ok(node)
    }

    /// The collection that ends here, as a node (`None` without one open).
    fn end(&mut self, span: &PSpan) -> Option<Raw> {
        let end = byte_span(span).end;
        let (node, anchor) = match self.stack.pop() {
            Some(Frame::Seq(items, tag, anchor, start, _)) => (
                Raw::Seq {
                    items,
                    tag,
                    span: start..end.max(start),
                },
                anchor,
            ),
            Some(Frame::Map(pairs, _, tag, anchor, start, _)) => (
                Raw::Map {
                    pairs,
                    tag,
                    span: start..end.max(start),
                },
                anchor,
            ),
            None => return None,
        };
        if anchor != 0 {
            self.anchors.push((anchor, node.clone()));
        }
        Some(node)
    }

    /// Put a finished node where it goes: an item, a key, a value or the root; a key
    /// checked for what PyYAML refuses there.
    fn place(&mut self, node: Raw, anchored: bool) -> Result<(), SyntaxError> {
        let text = self.text;
        match self.stack.last_mut() {
            Some(Frame::Seq(items, ..)) => items.push(node),
            Some(Frame::Map(pairs, key, _, _, _, flow)) => match key.take() {
                // In a flow mapping's value `?` is PyYAML's key indicator where a node
                // must start (`{key: ?x}`), not the start of a plain scalar.
                Some(_)
                    if *flow
                        && let Raw::Scalar {
                            plain: true, span, ..
                        } = &node
                        && text[span.clone()].starts_with('?') =>
                {
                    return Err(error_at(
                        text,
                        "while parsing a flow node: expected the node content, but found '?'",
                        span.start,
                    ));
                }
                Some(k) => pairs.push((k, node)),
                None => {
                    key_allowed(text, &node, *flow, anchored)?;
                    *key = Some(node);
                }
            },
            None => self.root = Some(node),
        }
        Ok(())
    }
}

/// What PyYAML refuses as a mapping's key: an empty implicit key in a block mapping, an
/// empty key standing for the value indicator in a flow collection, a multi-line simple
/// key in a flow mapping.
fn key_allowed(text: &str, node: &Raw, flow: bool, anchored: bool) -> Result<(), SyntaxError> {
    // An empty implicit key (`: 1` on its own line) is PyYAML's
    // "expected <block end>, but found ':'".
    if !flow
        && let Raw::Scalar {
            plain: true,
            tag: None,
            span,
            ..
        } = node
        && span.is_empty()
        && !text[..span.start].trim_end().ends_with('?')
    {
        return Err(error_at(
            text,
            "while parsing a block mapping: expected <block end>, but found ':'",
            span.start,
        ));
    }
    // In a flow collection an empty key is PyYAML's value indicator
    // where a node must be (`{: x}`, `[a, : x]`), unless `?`, an
    // anchor or a tag gives the key a node.
    if flow
        && !anchored
        && let Raw::Scalar {
            plain: true,
            tag: None,
            span,
            ..
        } = node
        && span.is_empty()
        && !text[..span.start].trim_end().ends_with('?')
    {
        return Err(flow_colon(text, span.start));
    }
    // PyYAML's simple keys are single-line, in flow mappings too: a
    // multi-line scalar followed by `:` is an error there (one without a
    // value, `{a\n b}`, is a key of its own).
    if flow
        && let Raw::Scalar { span, .. } = node
        && text[span.clone()].contains(['\n', '\r'])
        && !text[..span.start].trim_end().ends_with('?')
        && text[span.end..].trim_start().starts_with(':')
    {
        return Err(error_at(
            text,
            "while parsing a flow mapping: expected ',' or '}', but got a multi-line key",
            span.start,
        ));
    }
    Ok(())
}

/// PyYAML's parser meeting its value indicator where a flow node must start.
fn flow_colon(text: &str, at: usize) -> SyntaxError {
    error_at(
        text,
        "while parsing a flow node: expected the node content, but found ':'",
        at,
    )
}

/// Whether the node being composed is inside a flow collection.
fn in_flow(stack: &[Frame]) -> bool {
    stack.last().is_some_and(|f| match f {
        Frame::Seq(.., flow) | Frame::Map(.., flow) => *flow,
    })
}
