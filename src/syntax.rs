//! Phase 1: text -> [`crate::ast::File`]. Runs the pest grammar and turns the parse
//! tree into the AST, keeping a span on every node. A syntax error becomes a
//! [`RuleError::Syntax`] whose expected-rule set is said in words.

use crate::ast::*;
use crate::error::RuleError;
use pest::Parser;
use pest::iterators::Pair;
use pest_derive::Parser;

#[derive(Parser)]
#[grammar = "../grammar/puzzle.pest"]
struct PuzParser;

/// Parses a rule file. On a syntax error, returns that one error (pest stops
/// at the first; the rest of the file cannot be read reliably after it).
pub fn parse(src: &str) -> Result<File, RuleError> {
    let mut pairs = PuzParser::parse(Rule::file, src).map_err(|e| syntax_error(src, e))?;
    let file = pairs.next().expect("the file rule always yields one pair");
    let decls = inner(file)
        .filter(|p| p.as_rule() != Rule::EOI)
        .map(decl)
        .collect();
    Ok(File { decls })
}

/// The children of a pair, without keyword tokens (they carry no data).
fn inner(p: Pair<'_, Rule>) -> impl Iterator<Item = Pair<'_, Rule>> {
    p.into_inner().filter(|c| !is_keyword(c.as_rule()))
}

fn is_keyword(r: Rule) -> bool {
    format!("{r:?}").starts_with("kw_")
}

fn span(p: &Pair<'_, Rule>) -> Span {
    let s = p.as_span();
    (s.start(), s.end() - s.start()).into()
}

fn ident(p: Pair<'_, Rule>) -> Ident {
    debug_assert_eq!(p.as_rule(), Rule::ident);
    Ident {
        name: p.as_str().to_string(),
        span: span(&p),
    }
}

fn int(p: Pair<'_, Rule>) -> Spanned<u64> {
    // The grammar guarantees digits; only overflow can fail. Saturate: any
    // value this large is rejected later as an absurd size.
    Spanned {
        value: p.as_str().parse().unwrap_or(u64::MAX),
        span: span(&p),
    }
}

fn size(p: Pair<'_, Rule>) -> Size {
    match p.as_rule() {
        Rule::int => Size::Lit(int(p)),
        _ => Size::Field(ident(p)),
    }
}

fn char_lit(p: Pair<'_, Rule>) -> Spanned<char> {
    let sp = span(&p);
    let body = p.into_inner().next().expect("char_lit has a body").as_str();
    let c = match body {
        "\\'" => '\'',
        "\\\\" => '\\',
        s => s.chars().next().unwrap_or(' '),
    };
    Spanned { value: c, span: sp }
}

fn string(p: Pair<'_, Rule>) -> Spanned<String> {
    let body = p.into_inner().next().expect("string has a body");
    // The span of the body, so placeholders can be pointed at exactly.
    Spanned {
        value: body.as_str().to_string(),
        span: span(&body),
    }
}

fn property(p: Pair<'_, Rule>) -> Spanned<Property> {
    let value = if p.as_str().starts_with("solid") {
        Property::Solid
    } else {
        Property::Opaque
    };
    Spanned {
        value,
        span: span(&p),
    }
}

fn decl(p: Pair<'_, Rule>) -> Decl {
    let sp = span(&p);
    let rule = p.as_rule();
    let mut it = inner(p);
    match rule {
        Rule::puzzle_decl => Decl::Puzzle(string(it.next().unwrap())),
        Rule::input_decl => Decl::Input(it.map(input_item).collect()),
        Rule::domain_decl => {
            let name = ident(it.next().unwrap());
            Decl::Domain(DomainDecl {
                name,
                values: it.map(ident).collect(),
            })
        }
        Rule::tiles_decl => Decl::Tiles(it.map(tile_def).collect()),
        Rule::agent_decl => Decl::Agent(agent_decl(it)),
        Rule::flag_decl => Decl::Flags(
            it.map(|f| {
                let mut fi = inner(f);
                FlagDecl {
                    name: ident(fi.next().unwrap()),
                    domain: fi.next().map(ident),
                }
            })
            .collect(),
        ),
        Rule::move_decl => {
            let mover = it.next().unwrap();
            let mover_span = span(&mover);
            let m = inner(mover).next().unwrap();
            let mover = (m.as_rule() == Rule::ident).then(|| ident(m));
            let mut mode = None;
            let mut dirs = Vec::new();
            for c in it {
                match c.as_rule() {
                    Rule::mode => {
                        let m = inner(c.clone()).next().unwrap();
                        mode = Some(Spanned {
                            value: if m.as_rule() == Rule::at_once {
                                Mode::AtOnce
                            } else {
                                Mode::InTurn
                            },
                            span: span(&c),
                        });
                    }
                    _ => dirs.push(direction(c)),
                }
            }
            Decl::Move(MoveDecl {
                mover,
                mover_span,
                mode,
                dirs,
            })
        }
        Rule::forbid_decl => {
            let c = it.next().unwrap();
            let value = if c.as_rule() == Rule::same_cell {
                Forbid::SameCell
            } else {
                Forbid::Swap
            };
            Decl::Forbid(Spanned { value, span: sp })
        }
        Rule::enter_decl => Decl::Enter(EnterDecl {
            pattern: pattern(it.next().unwrap()),
            cond: pred(it.next().unwrap()),
        }),
        Rule::on_decl => {
            let first = it.next().unwrap();
            let (agent, pat) = if first.as_rule() == Rule::ident {
                (Some(ident(first)), it.next().unwrap())
            } else {
                (None, first)
            };
            Decl::On(OnDecl {
                agent,
                pattern: pattern(pat),
                actions: actions(it.next().unwrap()),
            })
        }
        Rule::when_decl => {
            let agent = ident(it.next().unwrap());
            let relation = if it.next().unwrap().as_rule() == Rule::sees {
                Relation::Sees
            } else {
                Relation::On
            };
            Decl::When(WhenDecl {
                agent,
                relation,
                pattern: pattern(it.next().unwrap()),
                actions: actions(it.next().unwrap()),
            })
        }
        Rule::goal_decl => Decl::Goal(pred(it.next().unwrap())),
        Rule::limit_decl => Decl::Limit(Spanned {
            value: size(it.next().unwrap()),
            span: sp,
        }),
        Rule::output_decl => Decl::Output(
            it.map(|item| {
                let mut ii = inner(item);
                let k = ii.next().unwrap();
                let value = match k.as_str() {
                    "before" => OutputKind::Before,
                    "solved" => OutputKind::Solved,
                    _ => OutputKind::Unsolved,
                };
                OutputItem {
                    kind: Spanned {
                        value,
                        span: span(&k),
                    },
                    text: string(ii.next().unwrap()),
                }
            })
            .collect(),
        ),
        r => unreachable!("the grammar has no declaration {r:?}"),
    }
}

fn input_item(p: Pair<'_, Rule>) -> InputItem {
    let sp = span(&p);
    let rule = p.as_rule();
    let mut it = inner(p);
    match rule {
        Rule::cases_item => {
            let c = it.next().unwrap();
            let value = match c.as_rule() {
                Rule::until_eof => Cases::UntilEof,
                Rule::counted => Cases::Counted,
                Rule::single => Cases::Single,
                _ => Cases::UntilValues(inner(c).map(int).collect()),
            };
            InputItem::Cases(Spanned { value, span: sp })
        }
        Rule::header_item => InputItem::Header(it.map(ident).collect()),
        _ => InputItem::Grid {
            rows: size(it.next().unwrap()),
            cols: size(it.next().unwrap()),
            span: sp,
        },
    }
}

fn tile_def(p: Pair<'_, Rule>) -> TileDef {
    let mut it = inner(p);
    let name = ident(it.next().unwrap());
    let mut def = TileDef {
        name,
        chars: Vec::new(),
        domain: None,
        props: Vec::new(),
    };
    for c in it {
        match c.as_rule() {
            Rule::char_lit => def.chars.push(char_lit(c)),
            Rule::of_domain => def.domain = Some(ident(inner(c).next().unwrap())),
            _ => def.props.push(property(c)),
        }
    }
    def
}

fn markers(p: Pair<'_, Rule>) -> Markers {
    let sp = span(&p);
    let mut m = Markers {
        chars: Vec::new(),
        range: false,
        span: sp,
    };
    for c in inner(p) {
        match c.as_rule() {
            Rule::char_lit => m.chars.push(char_lit(c)),
            _ => m.range = true,
        }
    }
    m
}

fn agent_decl<'a>(it: impl Iterator<Item = Pair<'a, Rule>>) -> AgentDecl {
    let mut name = None;
    let mut family = None;
    let mut starts = None;
    let mut targets = None;
    let mut on = None;
    let mut props = Vec::new();
    for c in it {
        match c.as_rule() {
            Rule::ident if name.is_none() => name = Some(ident(c)),
            Rule::ident => on = Some(ident(c)),
            Rule::family => family = Some(size(inner(c).next().unwrap())),
            Rule::markers => starts = Some(markers(c)),
            Rule::target => targets = Some(markers(inner(c).next().unwrap())),
            _ => props.push(property(c)),
        }
    }
    AgentDecl {
        name: name.unwrap(),
        family,
        starts: starts.unwrap(),
        targets,
        on: on.unwrap(),
        props,
    }
}

fn direction(p: Pair<'_, Rule>) -> Spanned<Dir> {
    let (dr, dc) = match p.as_str() {
        "north" => (-1, 0),
        "south" => (1, 0),
        "east" => (0, 1),
        "west" => (0, -1),
        "northeast" => (-1, 1),
        "northwest" => (-1, -1),
        "southeast" => (1, 1),
        "southwest" => (1, -1),
        _ => (0, 0),
    };
    Spanned {
        value: Dir { dr, dc },
        span: span(&p),
    }
}

fn pattern(p: Pair<'_, Rule>) -> Pattern {
    let sp = span(&p);
    let mut it = inner(p);
    Pattern {
        tile: ident(it.next().unwrap()),
        arg: it.next().map(ident),
        span: sp,
    }
}

fn actions(p: Pair<'_, Rule>) -> Vec<Action> {
    inner(p)
        .map(|a| {
            let sp = span(&a);
            let mut it = inner(a);
            let verb = match it.next().unwrap().as_str().trim() {
                "set" => Verb::Set,
                "clear" => Verb::Clear,
                _ => Verb::Toggle,
            };
            Action {
                verb,
                flag: flag_ref(it.next().unwrap()),
                span: sp,
            }
        })
        .collect()
}

fn flag_ref(p: Pair<'_, Rule>) -> FlagRef {
    let sp = span(&p);
    let mut it = inner(p);
    FlagRef {
        name: ident(it.next().unwrap()),
        index: it.next().map(ident),
        span: sp,
    }
}

fn place(p: Pair<'_, Rule>) -> Place {
    let c = inner(p).next().unwrap();
    match c.as_rule() {
        Rule::its_target => Place::ItsTarget(span(&c)),
        _ => Place::Tile(pattern(c)),
    }
}

fn pred(p: Pair<'_, Rule>) -> Pred {
    let sp = span(&p);
    match p.as_rule() {
        Rule::pred | Rule::conj => {
            let or = p.as_rule() == Rule::pred;
            let mut parts: Vec<Pred> = inner(p).map(pred).collect();
            if parts.len() == 1 {
                parts.pop().unwrap()
            } else if or {
                Pred::Or(parts, sp)
            } else {
                Pred::And(parts, sp)
            }
        }
        Rule::neg => {
            let mut nots = 0;
            let mut atom = None;
            for c in inner(p) {
                if c.as_rule() == Rule::not_op {
                    nots += 1;
                } else {
                    atom = Some(pred(c));
                }
            }
            let mut a = atom.unwrap();
            for _ in 0..nots {
                a = Pred::Not(Box::new(a), sp);
            }
            a
        }
        Rule::every_on | Rule::any_on | Rule::agent_on => {
            let rule = p.as_rule();
            let mut it = inner(p);
            let who = ident(it.next().unwrap());
            let pl = place(it.next().unwrap());
            match rule {
                Rule::every_on => Pred::Every(who, pl, sp),
                Rule::any_on => Pred::Any(who, pl, sp),
                _ => Pred::On(who, pl, sp),
            }
        }
        Rule::all_flags => Pred::AllFlags(ident(inner(p).next().unwrap()), sp),
        Rule::any_flags => Pred::AnyFlag(ident(inner(p).next().unwrap()), sp),
        Rule::flag_ref => Pred::Flag(flag_ref(p)),
        r => unreachable!("the grammar has no predicate {r:?}"),
    }
}

/// Says a grammar rule in words, for "expected ..." messages.
pub fn describe_rule(r: Rule) -> String {
    let name = format!("{r:?}");
    let punct = match r {
        Rule::kw_colon => Some("`:`"),
        Rule::kw_lbrace => Some("`{`"),
        Rule::kw_rbrace => Some("`}`"),
        Rule::kw_eq => Some("`=`"),
        Rule::kw_rbracket => Some("`]`"),
        Rule::kw_rparen => Some("`)`"),
        Rule::kw_comma => Some("`,`"),
        _ => None,
    };
    if let Some(p) = punct {
        return p.to_string();
    }
    if let Some(kw) = name.strip_prefix("kw_") {
        return format!("`{kw}`");
    }
    match r {
        Rule::EOI => "the end of the file",
        Rule::ident => "a name",
        Rule::int => "a number",
        Rule::char_lit => "a quoted character like '#'",
        Rule::string => "a string in double quotes",
        Rule::puzzle_decl
        | Rule::input_decl
        | Rule::domain_decl
        | Rule::tiles_decl
        | Rule::agent_decl
        | Rule::flag_decl
        | Rule::move_decl
        | Rule::forbid_decl
        | Rule::enter_decl
        | Rule::on_decl
        | Rule::when_decl
        | Rule::goal_decl
        | Rule::limit_decl
        | Rule::output_decl => "a declaration (`tiles`, `agent`, `move`, `goal`, ...)",
        Rule::cases_item | Rule::header_item | Rule::grid_item => "`cases`, `header` or `grid`",
        Rule::until_eof | Rule::until_values => "`until`",
        Rule::counted => "`counted`",
        Rule::single => "`single`",
        Rule::tile_def => "a tile name",
        Rule::of_domain => "`of`",
        Rule::property => "a property (`solid` or `opaque`)",
        Rule::family => "`[` and a family size",
        Rule::markers => "a quoted marker character like 'a'",
        Rule::range_dots => "`..`",
        Rule::target => "`target`",
        Rule::flag_item => "a flag name",
        Rule::mover => "an agent name or `all`",
        Rule::all_agents => "`all`",
        Rule::mode | Rule::at_once | Rule::in_turn => "`at once` or `in turn`",
        Rule::direction => "a direction (`north`, `east`, ..., `stay`)",
        Rule::same_cell | Rule::swap => "`same cell` or `swap`",
        Rule::pattern => "a tile name",
        Rule::sees | Rule::stands_on => "`sees` or `on`",
        Rule::actions | Rule::action | Rule::action_verb => {
            "an action (`set`, `clear` or `toggle`)"
        }
        Rule::flag_ref => "a flag",
        Rule::pred | Rule::conj | Rule::neg => "a condition",
        Rule::not_op => "`not`",
        Rule::every_on => "`every`",
        Rule::any_on | Rule::any_flags => "`any`",
        Rule::all_flags => "`all`",
        Rule::agent_on => "an agent",
        Rule::place => "a tile or `its target`",
        Rule::its_target => "`its target`",
        Rule::output_item | Rule::output_kind => "`before`, `solved` or `unsolved`",
        _ => return name.replace('_', " "),
    }
    .to_string()
}

fn syntax_error(src: &str, e: pest::error::Error<Rule>) -> RuleError {
    use pest::error::{ErrorVariant, InputLocation};
    let pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    let (expected, hint) = match &e.variant {
        ErrorVariant::ParsingError {
            positives,
            negatives,
        } => {
            let mut words: Vec<String> = positives.iter().map(|r| describe_rule(*r)).collect();
            words.dedup();
            let mut seen = std::collections::HashSet::new();
            words.retain(|w| seen.insert(w.clone()));
            let expected = if words.is_empty() {
                let un: Vec<String> = negatives.iter().map(|r| describe_rule(*r)).collect();
                format!("unexpected {}", un.join(" or "))
            } else {
                format!("expected {}", or_list(&words))
            };
            let hint = if negatives.contains(&Rule::keyword) || positives.contains(&Rule::ident) {
                "names are letters, digits and `_`, and must not be keywords".to_string()
            } else {
                "see the language reference in README.md".to_string()
            };
            (expected, hint)
        }
        ErrorVariant::CustomError { message } => (message.clone(), String::new()),
    };
    let found = match src[pos..].chars().next() {
        None => "the file ends here".to_string(),
        Some(_) => {
            let word: String = src[pos..]
                .chars()
                .take_while(|c| !c.is_whitespace())
                .take(20)
                .collect();
            if word.is_empty() {
                "found a blank here".to_string()
            } else {
                format!("found `{word}`")
            }
        }
    };
    let len = src[pos..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .map(char::len_utf8)
        .sum::<usize>()
        .max(usize::from(pos < src.len()));
    RuleError::Syntax {
        expected,
        span: (pos, len).into(),
        found,
        hint,
    }
}

fn or_list(words: &[String]) -> String {
    match words.len() {
        0 => String::new(),
        1 => words[0].clone(),
        n => format!("{} or {}", words[..n - 1].join(", "), words[n - 1]),
    }
}
