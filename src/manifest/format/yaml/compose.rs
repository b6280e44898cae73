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

pub(super) fn scan_error(text: &str, e: &ScanError) -> SyntaxError {
    let at = e.marker().byte_offset().unwrap_or(0).min(text.len());
    let message = e.info();
    let mut err = error_at(text, &message, at);
    err.display = e.to_string();
    err
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
    let options = serde_saphyr::granit_parser::options! {
        block_scalar_eof_without_line_feed: true,
        bom_inside_document_as_content: true,
    };
    let mut quoted: Vec<(Span, bool)> = Vec::new();
    let mut anchors: Vec<(usize, Raw)> = Vec::new();
    let mut stack: Vec<Frame> = Vec::new();
    let mut root: Option<Raw> = None;
    let mut documents = 0;
    let mut expanded = 0usize;
    for event in Parser::new_from_str_with_options(text, options) {
        let (event, span) = event.map_err(|e| scan_error(text, &e))?;
        let node = match event {
            Event::DocumentStart(..) => {
                documents += 1;
                if documents > 1 {
                    let at = byte_span(&span).start;
                    return Err(error_at(
                        text,
                        "expected a single document in the stream",
                        at,
                    ));
                }
                continue;
            }
            Event::Scalar(value, style, anchor, tag) => {
                let flow = stack.iter().any(|f| match f {
                    Frame::Seq(.., flow) | Frame::Map(.., flow) => *flow,
                });
                match style {
                    ScalarStyle::Plain => {
                        // In flow context PyYAML ends a plain scalar at `?`,
                        // then finds a key indicator it cannot parse there.
                        let src = &text[byte_span(&span)];
                        if flow && let Some(q) = src.get(1..).and_then(|r| r.find('?')) {
                            return Err(error_at(
                                text,
                                "while parsing a flow node: found unexpected '?'",
                                byte_span(&span).start + 1 + q,
                            ));
                        }
                    }
                    ScalarStyle::SingleQuoted | ScalarStyle::DoubleQuoted => {
                        quoted.push((byte_span(&span), false));
                    }
                    _ => quoted.push((byte_span(&span), true)),
                }
                let node = Raw::Scalar {
                    value: value.into_owned(),
                    plain: style == ScalarStyle::Plain,
                    tag: tag.map(|t| full_tag(&t)),
                    span: byte_span(&span),
                };
                if anchor != 0 {
                    anchors.push((anchor, node.clone()));
                }
                node
            }
            Event::Alias(id) => {
                let node = anchors
                    .iter()
                    .rev()
                    .find(|(a, _)| *a == id)
                    .map(|(_, n)| n.clone())
                    .ok_or_else(|| {
                        error_at(text, "found undefined alias", byte_span(&span).start)
                    })?;
                expanded += node.size();
                if expanded > ALIAS_BUDGET {
                    return Err(error_at(
                        text,
                        "alias expansion budget exceeded (a billion-laughs document?)",
                        byte_span(&span).start,
                    ));
                }
                node
            }
            Event::SequenceStart(style, anchor, tag) => {
                let start = byte_span(&span).start;
                stack.push(Frame::Seq(
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
                stack.push(Frame::Map(
                    Vec::new(),
                    None,
                    tag.map(|t| full_tag(&t)),
                    anchor,
                    start,
                    style == serde_saphyr::granit_parser::StructureStyle::Flow,
                ));
                continue;
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let end = byte_span(&span).end;
                let (node, anchor) = match stack.pop() {
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
                    None => continue,
                };
                if anchor != 0 {
                    anchors.push((anchor, node.clone()));
                }
                node
            }
            _ => continue,
        };
        match stack.last_mut() {
            Some(Frame::Seq(items, ..)) => items.push(node),
            Some(Frame::Map(pairs, key, _, _, _, flow)) => match key.take() {
                Some(k) => pairs.push((k, node)),
                None => {
                    // An empty implicit key (`: 1` on its own line) is PyYAML's
                    // "expected <block end>, but found ':'".
                    if !*flow
                        && let Raw::Scalar {
                            plain: true,
                            tag: None,
                            span,
                            ..
                        } = &node
                        && span.is_empty()
                        && !text[..span.start].trim_end().ends_with('?')
                    {
                        return Err(error_at(
                            text,
                            "while parsing a block mapping: expected <block end>, but found ':'",
                            span.start,
                        ));
                    }
                    // PyYAML's simple keys are single-line, in flow mappings too.
                    if *flow
                        && let Raw::Scalar { span, .. } = &node
                        && text[span.clone()].contains(['\n', '\r'])
                        && !text[..span.start].trim_end().ends_with('?')
                    {
                        return Err(error_at(
                            text,
                            "while parsing a flow mapping: expected ',' or '}', but got a multi-line key",
                            span.start,
                        ));
                    }
                    *key = Some(node);
                }
            },
            None => root = Some(node),
        }
    }
    Ok((root, quoted))
}
