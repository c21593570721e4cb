//! `puzzle lsp`: a language server on stdin and stdout (the Language
//! Server Protocol, through `lsp-server`, rust-analyzer's). It gives an
//! editor the reports of `puzzle check` as the file is typed, hover (what a
//! name is, its declaration and the comment above it), go to definition,
//! completion of keywords and declared names, and the file's symbols. What
//! a rule file holds is the library's ([`puzzle::outline`]); here is the
//! protocol.

use crate::Outcome;
use crate::exit;
use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Notification as _,
    PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, GotoDefinition, HoverRequest, Request as _,
};
use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionResponse, Diagnostic, DiagnosticSeverity,
    DocumentSymbol, DocumentSymbolResponse, GotoDefinitionResponse, Hover, HoverContents, Location,
    MarkupContent, MarkupKind, NumberOrString, OneOf, Position, PublishDiagnosticsParams, Range,
    ServerCapabilities, SymbolKind, TextDocumentPositionParams, TextDocumentSyncCapability,
    TextDocumentSyncKind, Uri,
};
use miette::Report;
use puzzle::outline::{self, Def, DefKind};
use std::collections::HashMap;

/// An open rule file: its text, and the names of the last version of it
/// that parsed (so that a name is still found while a line is half typed).
struct Doc {
    text: String,
    defs: Vec<Def>,
}

/// `puzzle lsp`: serves until the editor says `exit`.
pub fn serve() -> Result<Outcome, Report> {
    let failed = |e: &dyn std::fmt::Display| {
        miette::miette!(code = "puzzle::lsp", "the language server stopped: {e}")
    };
    let (connection, io) = Connection::stdio();
    let caps = ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        hover_provider: Some(lsp_types::HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        completion_provider: Some(lsp_types::CompletionOptions::default()),
        document_symbol_provider: Some(OneOf::Left(true)),
        ..Default::default()
    };
    let caps = serde_json::to_value(caps).map_err(|e| failed(&e))?;
    connection.initialize(caps).map_err(|e| failed(&e))?;
    let mut docs: HashMap<String, Doc> = HashMap::new();
    for msg in &connection.receiver {
        match msg {
            Message::Request(req) => {
                if connection.handle_shutdown(&req).map_err(|e| failed(&e))? {
                    break;
                }
                let resp = answer(&docs, req);
                if connection.sender.send(Message::Response(resp)).is_err() {
                    break;
                }
            }
            Message::Notification(n) => {
                for out in changed(&mut docs, n) {
                    if connection.sender.send(Message::Notification(out)).is_err() {
                        break;
                    }
                }
            }
            Message::Response(_) => {}
        }
    }
    drop(connection);
    io.join().map_err(|e| failed(&e))?;
    Ok(Outcome::Code(exit::OK))
}

/// A document opened, changed or closed: its reports, published.
fn changed(docs: &mut HashMap<String, Doc>, n: Notification) -> Vec<Notification> {
    let (uri, text): (Uri, Option<String>) = match n.method.as_str() {
        DidOpenTextDocument::METHOD => {
            match serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params) {
                Ok(p) => (p.text_document.uri, Some(p.text_document.text)),
                Err(_) => return Vec::new(),
            }
        }
        DidChangeTextDocument::METHOD => {
            match serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params) {
                // Whole texts are asked for: the last change is the text.
                Ok(mut p) => match p.content_changes.pop() {
                    Some(c) => (p.text_document.uri, Some(c.text)),
                    None => return Vec::new(),
                },
                Err(_) => return Vec::new(),
            }
        }
        DidCloseTextDocument::METHOD => {
            match serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params) {
                Ok(p) => (p.text_document.uri, None),
                Err(_) => return Vec::new(),
            }
        }
        _ => return Vec::new(),
    };
    let key = uri.as_str().to_string();
    let diagnostics = match text {
        None => {
            docs.remove(&key);
            Vec::new()
        }
        Some(text) => {
            let name = key.rsplit('/').next().unwrap_or(&key).to_string();
            let checked = outline::check(&name, &text);
            let diagnostics = checked
                .reports
                .iter()
                .map(|r| diagnostic(&text, r))
                .collect();
            let kept = docs.remove(&key).map(|d| d.defs).unwrap_or_default();
            let defs = checked.ast.as_ref().map_or(kept, outline::definitions);
            docs.insert(key, Doc { text, defs });
            diagnostics
        }
    };
    let params = PublishDiagnosticsParams {
        uri,
        diagnostics,
        version: None,
    };
    vec![Notification::new(PublishDiagnostics::METHOD.into(), params)]
}

fn range(text: &str, offset: usize, len: usize) -> Range {
    let at = |o| {
        let p = outline::position(text, o);
        Position::new(p.line, p.column)
    };
    Range::new(at(offset), at(offset + len))
}

fn diagnostic(text: &str, r: &outline::Report) -> Diagnostic {
    Diagnostic {
        range: range(text, r.offset, r.len),
        severity: Some(if r.warning {
            DiagnosticSeverity::WARNING
        } else {
            DiagnosticSeverity::ERROR
        }),
        code: r.code.clone().map(NumberOrString::String),
        source: Some("puzzle".into()),
        message: r.message.clone(),
        ..Default::default()
    }
}

/// A request answered: its result, or an error the editor is told.
fn answer(docs: &HashMap<String, Doc>, req: Request) -> Response {
    let id: RequestId = req.id.clone();
    let result = match req.method.as_str() {
        HoverRequest::METHOD => at_position(docs, &req)
            .map(|(doc, _, off)| serde_json::to_value(hover(doc, off)).unwrap_or_default()),
        GotoDefinition::METHOD => at_position(docs, &req).map(|(doc, uri, off)| {
            let found = outline::definition_at(&doc.defs, &doc.text, off).map(|d| {
                GotoDefinitionResponse::Scalar(Location::new(
                    uri,
                    range(&doc.text, d.offset, d.len),
                ))
            });
            serde_json::to_value(found).unwrap_or_default()
        }),
        Completion::METHOD => at_position(docs, &req).map(|(doc, _, _)| {
            serde_json::to_value(CompletionResponse::Array(completions(doc))).unwrap_or_default()
        }),
        DocumentSymbolRequest::METHOD => {
            match serde_json::from_value::<lsp_types::DocumentSymbolParams>(req.params) {
                Ok(p) => match docs.get(p.text_document.uri.as_str()) {
                    Some(doc) => Ok(serde_json::to_value(DocumentSymbolResponse::Nested(symbols(
                        doc,
                    )))
                    .unwrap_or_default()),
                    None => Err("the document is not open".to_string()),
                },
                Err(e) => Err(format!("bad parameters: {e}")),
            }
        }
        other => {
            return Response::new_err(
                id,
                lsp_server::ErrorCode::MethodNotFound as i32,
                format!("`{other}` is not a request puzzle's server answers"),
            );
        }
    };
    match result {
        Ok(v) => Response::new_ok(id, v),
        Err(why) => Response::new_err(id, lsp_server::ErrorCode::InvalidParams as i32, why),
    }
}

/// The document and the byte offset a position request is about.
fn at_position<'d>(
    docs: &'d HashMap<String, Doc>,
    req: &Request,
) -> Result<(&'d Doc, Uri, usize), String> {
    // Hover, definition and completion all carry a text document and a
    // position (flattened into their parameters).
    let p: TextDocumentPositionParams =
        serde_json::from_value(req.params.clone()).map_err(|e| format!("bad parameters: {e}"))?;
    let uri = p.text_document.uri;
    let doc = docs
        .get(uri.as_str())
        .ok_or_else(|| "the document is not open".to_string())?;
    let pos = outline::Position {
        line: p.position.line,
        column: p.position.character,
    };
    let off = outline::offset(&doc.text, pos);
    Ok((doc, uri, off))
}

fn hover(doc: &Doc, off: usize) -> Option<Hover> {
    let span = outline::word_at(&doc.text, off)?;
    let word = &doc.text[span.clone()];
    let value = match outline::definition_at(&doc.defs, &doc.text, off) {
        Some(def) => {
            let (line, comments) = outline::described(&doc.text, def);
            let mut v = format!("{} `{}`\n\n```\n{line}\n```", def.kind, def.name);
            if !comments.is_empty() {
                v.push_str("\n\n");
                v.push_str(&comments.join("\n"));
            }
            v
        }
        None if outline::keywords().contains(&word) => {
            format!("`{word}`: a keyword of the language")
        }
        None => return None,
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent {
            kind: MarkupKind::Markdown,
            value,
        }),
        range: Some(range(&doc.text, span.start, span.len())),
    })
}

/// How an editor shows a kind of name, in completion and in the outline.
fn sort(kind: DefKind) -> (CompletionItemKind, SymbolKind) {
    use DefKind as K;
    match kind {
        K::Tile | K::Value | K::Pose => (CompletionItemKind::ENUM_MEMBER, SymbolKind::ENUM_MEMBER),
        K::Agent | K::Object | K::Piece => (CompletionItemKind::CLASS, SymbolKind::CLASS),
        K::Domain => (CompletionItemKind::ENUM, SymbolKind::ENUM),
        K::Flag | K::Counter | K::HeaderField => {
            (CompletionItemKind::VARIABLE, SymbolKind::VARIABLE)
        }
        K::Field | K::Beam => (CompletionItemKind::FUNCTION, SymbolKind::FUNCTION),
        K::Layout | K::Moves | K::CostPart => (CompletionItemKind::CONSTANT, SymbolKind::CONSTANT),
    }
}

fn completions(doc: &Doc) -> Vec<CompletionItem> {
    let names = doc.defs.iter().map(|d| CompletionItem {
        label: d.name.clone(),
        kind: Some(sort(d.kind).0),
        detail: Some(d.kind.to_string()),
        ..Default::default()
    });
    let words = outline::keywords().iter().map(|k| CompletionItem {
        label: k.to_string(),
        kind: Some(CompletionItemKind::KEYWORD),
        ..Default::default()
    });
    let mut items: Vec<CompletionItem> = names.chain(words).collect();
    // A name once, whatever declares it twice.
    let mut seen = std::collections::HashSet::new();
    items.retain(|i| seen.insert(i.label.clone()));
    items
}

#[allow(deprecated)] // `DocumentSymbol::deprecated`, which must be given.
fn symbols(doc: &Doc) -> Vec<DocumentSymbol> {
    (doc.defs.iter())
        .map(|d| {
            let (line, _) = outline::described(&doc.text, d);
            let r = range(&doc.text, d.offset, d.len);
            DocumentSymbol {
                name: d.name.clone(),
                detail: Some(format!("{}: {line}", d.kind)),
                kind: sort(d.kind).1,
                tags: None,
                deprecated: None,
                range: r,
                selection_range: r,
                children: None,
            }
        })
        .collect()
}
