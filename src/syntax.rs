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
    check_nesting(src)?;
    let mut pairs = PuzParser::parse(Rule::file, src).map_err(|e| syntax_error(src, e))?;
    check_numbers(&pairs)?;
    let file = pairs.next().expect("the file rule always yields one pair");
    let decls = inner(file)
        .filter(|p| p.as_rule() != Rule::EOI)
        .map(decl)
        .collect();
    Ok(File { decls })
}

/// Reports the first number written that an `i64` cannot hold (it was
/// taken as the largest one, silently).
fn check_numbers(pairs: &pest::iterators::Pairs<'_, Rule>) -> Result<(), RuleError> {
    for p in pairs.clone().flatten() {
        if matches!(p.as_rule(), Rule::int | Rule::signed_int) && p.as_str().parse::<i64>().is_err()
        {
            return Err(RuleError::from(crate::error::Invalid {
                topic: crate::error::Topic::Number,
                message: format!("the number {} is too large", p.as_str()),
                span: span(&p),
                label: "beyond 64 bits".into(),
                help: format!("numbers are at most {} in size", i64::MAX),
            }));
        }
    }
    Ok(())
}

/// The deepest nesting of brackets a rule file may have. The parser, the
/// checker and the compiler recurse once per level, and this keeps every
/// thread's stack far from its end.
pub const MAX_NESTING: usize = 64;

/// Reports the first bracket nested deeper than [`MAX_NESTING`], outside
/// comments, strings and character literals.
fn check_nesting(src: &str) -> Result<(), RuleError> {
    let mut depth = 0usize;
    let mut chars = src.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '#' => while chars.next_if(|&(_, c)| c != '\n').is_some() {},
            '"' => while chars.next().is_some_and(|(_, c)| c != '"' && c != '\n') {},
            '\'' => {
                // A character literal: `'x'`, `'\''`, `'\\'`.
                if chars.next_if(|&(_, c)| c == '\\').is_some() {
                    chars.next();
                }
                chars.next();
                chars.next_if(|&(_, c)| c == '\'');
            }
            '(' | '[' | '{' => {
                depth += 1;
                if depth > MAX_NESTING {
                    return Err(RuleError::TooDeep {
                        span: (i, 1).into(),
                        max: MAX_NESTING,
                    });
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

/// The next child of a pair. The grammar gives each pair the children
/// this module reads, in order: a missing one is a bug of this module (its
/// reading out of step with the grammar), never of the text parsed.
fn next<'i>(it: &mut impl Iterator<Item = Pair<'i, Rule>>) -> Pair<'i, Rule> {
    it.next()
        .expect("the grammar gives the pair the children read here")
}

/// The first child of a pair that is not a keyword token (see [`next`]).
fn first(p: Pair<'_, Rule>) -> Pair<'_, Rule> {
    next(&mut inner(p))
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
    // A `?c` variable is a name that starts with `?`: no value or
    // declaration can be named so, and the resolver tells them apart by it.
    debug_assert!(matches!(
        p.as_rule(),
        Rule::ident | Rule::ident_on | Rule::var
    ));
    Ident {
        name: p.as_str().to_string(),
        span: span(&p),
    }
}

fn int(p: Pair<'_, Rule>) -> Spanned<i64> {
    // The grammar guarantees digits; only overflow can fail. Saturate: any
    // value this large is rejected later as an absurd size.
    Spanned {
        value: p.as_str().parse().unwrap_or(i64::MAX),
        span: span(&p),
    }
}

/// `3`, `1 pushes + 2 walks`.
fn price(p: Pair<'_, Rule>) -> Price {
    let sp = span(&p);
    let terms = inner(p)
        .map(|t| match t.as_rule() {
            Rule::part_amount => {
                let mut it = inner(t);
                // A number, a header field, or an expression in parentheses.
                let e = int_expr(first(next(&mut it)));
                let name = next(&mut it);
                let part = Ident {
                    name: name.as_str().to_string(),
                    span: span(&name),
                };
                (e, Some(part))
            }
            _ => (int_expr(t), None),
        })
        .collect();
    Price { terms, span: sp }
}

fn int_expr(p: Pair<'_, Rule>) -> IntExpr {
    let sp = span(&p);
    match p.as_rule() {
        Rule::int | Rule::signed_int => IntExpr::Lit(int(p)),
        Rule::ident | Rule::answer => IntExpr::Name(Ident {
            name: p.as_str().to_string(),
            span: sp,
        }),
        Rule::count_of => IntExpr::Count(ident(first(p)), sp),
        Rule::field_at => {
            let mut it = inner(p);
            let field = ident(next(&mut it));
            IntExpr::FieldAt(Box::new([field, ident(next(&mut it))]), sp)
        }
        Rule::negated => {
            // A run of signs nests one level at most.
            let signs = inner(p.clone())
                .filter(|c| c.as_rule() == Rule::minus)
                .count();
            let e = int_expr(next(&mut inner(p).filter(|c| c.as_rule() != Rule::minus)));
            if signs % 2 == 1 {
                IntExpr::Neg(Box::new(e), sp)
            } else {
                e
            }
        }
        Rule::int_expr | Rule::int_term => {
            let mut it = inner(p);
            let mut acc = int_expr(next(&mut it));
            while let Some(op) = it.next() {
                let op = match op.as_str() {
                    "+" => BinOp::Add,
                    "-" => BinOp::Sub,
                    "*" => BinOp::Mul,
                    "/" => BinOp::Div,
                    _ => BinOp::Rem,
                };
                let rhs = int_expr(next(&mut it));
                let start = acc.span().offset();
                let end = rhs.span().offset() + rhs.span().len();
                acc = IntExpr::Bin(
                    Box::new(acc),
                    op,
                    Box::new(rhs),
                    (start, end - start).into(),
                );
            }
            acc
        }
        r => unreachable!("the grammar has no integer expression {r:?}"),
    }
}

/// Parses the expression of an output placeholder (`{t - steps}`); `at` is
/// its offset in the rule file.
pub fn template_expr(text: &str, at: usize) -> Result<IntExpr, RuleError> {
    let mut pairs = PuzParser::parse(Rule::template_expr, text).map_err(|e| {
        let mut err = syntax_error(text, e);
        if let RuleError::Syntax { span, opener, .. } = &mut err {
            *span = (span.offset() + at, span.len()).into();
            *opener = opener.map(|o| (o.offset() + at, o.len()).into());
        }
        err
    })?;
    let p = next(&mut next(&mut pairs).into_inner());
    Ok(shift(int_expr(p), at))
}

/// An expression parsed alone, with its spans moved by `at`.
fn shift(e: IntExpr, at: usize) -> IntExpr {
    let mv = |s: Span| -> Span { (s.offset() + at, s.len()).into() };
    let id = |i: Ident| Ident {
        name: i.name,
        span: mv(i.span),
    };
    match e {
        IntExpr::Lit(l) => IntExpr::Lit(Spanned {
            value: l.value,
            span: mv(l.span),
        }),
        IntExpr::Name(i) => IntExpr::Name(id(i)),
        IntExpr::Count(i, s) => IntExpr::Count(id(i), mv(s)),
        IntExpr::FieldAt(fa, s) => {
            let [f, a] = *fa;
            IntExpr::FieldAt(Box::new([id(f), id(a)]), mv(s))
        }
        IntExpr::Neg(e, s) => IntExpr::Neg(Box::new(shift(*e, at)), mv(s)),
        IntExpr::Bin(a, op, b, s) => {
            IntExpr::Bin(Box::new(shift(*a, at)), op, Box::new(shift(*b, at)), mv(s))
        }
    }
}

fn symbol(p: Pair<'_, Rule>) -> Symbol {
    let sp = span(&p);
    let is_char = p.as_rule() == Rule::char_lit;
    let body = p.into_inner().next().expect("a symbol has a body").as_str();
    let text = if is_char {
        match body {
            "\\'" => "'".to_string(),
            "\\\\" => "\\".to_string(),
            s => s.to_string(),
        }
    } else {
        body.to_string()
    };
    Symbol {
        text,
        span: sp,
        is_char,
    }
}

fn string(p: Pair<'_, Rule>) -> Spanned<String> {
    let body = p.into_inner().next().expect("string has a body");
    // The span of the body, so placeholders can be pointed at exactly.
    Spanned {
        value: body.as_str().to_string(),
        span: span(&body),
    }
}

fn agent_property(p: Pair<'_, Rule>) -> Spanned<Property> {
    let value = if p.as_str().starts_with("solid") {
        Property::Solid
    } else if p.as_str().starts_with("optional") {
        Property::Optional
    } else {
        Property::Opaque
    };
    Spanned {
        value,
        span: span(&p),
    }
}

fn heading(p: Pair<'_, Rule>) -> u8 {
    match p.as_str() {
        "north" => 0,
        "east" => 1,
        "south" => 2,
        _ => 3,
    }
}

fn index_decl(p: Option<Pair<'_, Rule>>) -> Option<Ident> {
    p.map(|p| ident(first(p)))
}

fn decl(p: Pair<'_, Rule>) -> Decl {
    let sp = span(&p);
    let rule = p.as_rule();
    let mut it = inner(p);
    match rule {
        Rule::puzzle_decl => Decl::Puzzle(string(next(&mut it))),
        Rule::input_decl => Decl::Input(it.map(input_item).collect()),
        Rule::domain_decl => {
            let name = ident(next(&mut it));
            Decl::Domain(DomainDecl {
                name,
                values: it.map(ident).collect(),
            })
        }
        Rule::tiles_decl => Decl::Tiles(it.map(tile_def).collect()),
        Rule::agent_decl => Decl::Agent(agent_decl(it, false)),
        Rule::object_decl => Decl::Agent(agent_decl(it, true)),
        Rule::piece_decl => {
            let mut d = agent_decl(it, false);
            d.piece = Some(d.piece.is_some());
            Decl::Agent(d)
        }
        Rule::push_decl => {
            let object = ident(next(&mut it));
            Decl::Push(PushDecl {
                object,
                cost: price(next(&mut it)),
                span: sp,
            })
        }
        Rule::flag_decl => Decl::Flags(
            it.map(|f| {
                let mut fi = inner(f);
                FlagDecl {
                    name: ident(next(&mut fi)),
                    index: index_decl(fi.next()),
                }
            })
            .collect(),
        ),
        Rule::counter_decl => Decl::Counters(it.map(counter_decl).collect()),
        Rule::layout_decl => Decl::Layout(LayoutDecl {
            name: ident(next(&mut it)),
            rows: it.map(string).collect(),
        }),
        Rule::move_decl => move_decl(it),
        Rule::moves_decl => {
            let name = ident(next(&mut it));
            Decl::Moves(MovesDecl {
                name,
                moves: it.map(move_item).collect(),
            })
        }
        Rule::forbid_decl => {
            let c = next(&mut it);
            let value = match c.as_rule() {
                Rule::same_cell => Forbid::SameCell,
                Rule::swap => Forbid::Swap,
                _ => return Decl::ForbidIf(pred(c)),
            };
            Decl::Forbid(Spanned { value, span: sp })
        }
        Rule::enter_decl => {
            let pattern = pattern(next(&mut it));
            let w = next(&mut it);
            let what = match w.as_rule() {
                Rule::enter_if => EnterWhat::If(pred(first(w))),
                _ => EnterWhat::Costs(price(first(w))),
            };
            Decl::Enter(EnterDecl { pattern, what })
        }
        Rule::on_decl => on_decl(it),
        Rule::carry_decl => carry_decl(&mut it, sp),
        Rule::beam_decl => beam_decl(it, sp),
        Rule::field_decl => field_decl(it, sp),
        Rule::poses_decl => {
            let piece = ident(next(&mut it));
            let poses = it
                .map(|item| {
                    let mut r = inner(item);
                    let name = ident(next(&mut r));
                    (name, r.map(offset).collect())
                })
                .collect();
            Decl::Poses(PosesDecl { piece, poses })
        }
        Rule::teleport_decl => {
            let tile = ident(next(&mut it));
            Decl::Teleport(TeleportDecl {
                tile,
                optional: it.next().is_some(),
                span: sp,
            })
        }
        Rule::when_decl => when_decl(it),
        Rule::goal_decl => Decl::Goal(pred(next(&mut it))),
        Rule::limit_decl => limit_decl(it, sp),
        Rule::minimise_decl => Decl::Minimise(
            it.filter(|p| p.as_rule() == Rule::ident)
                .map(ident)
                .collect(),
        ),
        Rule::output_decl => Decl::Output(it.map(output_item).collect()),
        r => unreachable!("the grammar has no declaration {r:?}"),
    }
}

/// One counter of a `counter` declaration: `NAME[INDEX] LO..HI [wrap] [= INIT]`.
fn counter_decl(c: Pair<'_, Rule>) -> CounterDecl {
    let csp = span(&c);
    let mut ci = inner(c).peekable();
    let name = ident(next(&mut ci));
    let index = if ci.peek().is_some_and(|p| p.as_rule() == Rule::index_decl) {
        index_decl(ci.next())
    } else {
        None
    };
    let lo = int_expr(next(&mut ci));
    let hi = int_expr(next(&mut ci));
    let mut d = CounterDecl {
        name,
        index,
        lo,
        hi,
        wrap: false,
        init: None,
        span: csp,
    };
    for rest in ci {
        match rest.as_rule() {
            Rule::wrap => d.wrap = true,
            _ => d.init = Some(int_expr(first(rest))),
        }
    }
    d
}

/// One line of the `output` block: `solved "..."` and the like.
fn output_item(item: Pair<'_, Rule>) -> OutputItem {
    let mut ii = inner(item);
    let k = next(&mut ii);
    let value = match k.as_str() {
        "before" => OutputKind::Before,
        "solved" => OutputKind::Solved,
        "separator" => OutputKind::Separator,
        "stopped" => OutputKind::Stopped,
        "after" => OutputKind::After,
        "joiner" => OutputKind::Joiner,
        _ => OutputKind::Unsolved,
    };
    OutputItem {
        kind: Spanned {
            value,
            span: span(&k),
        },
        text: string(next(&mut ii)),
    }
}

/// `move WHO [MODE]: MOVES`.
fn move_decl<'i>(mut it: impl Iterator<Item = Pair<'i, Rule>>) -> Decl {
    let mover = next(&mut it);
    let mover_span = span(&mover);
    let m = first(mover);
    let mover = (m.as_rule() == Rule::ident).then(|| ident(m));
    let mut mode = None;
    let mut times = None;
    let mut moves = Vec::new();
    for c in it {
        match c.as_rule() {
            Rule::mode => {
                let m = first(c.clone());
                let value = match m.as_rule() {
                    Rule::at_once => Mode::AtOnce,
                    Rule::together => Mode::Together,
                    Rule::by_itself => {
                        times = inner(m)
                            .find(|x| x.as_rule() == Rule::int_expr)
                            .map(int_expr);
                        Mode::ByItself
                    }
                    _ => Mode::InTurn,
                };
                mode = Some(Spanned {
                    value,
                    span: span(&c),
                });
            }
            _ => moves.push(move_item(c)),
        }
    }
    Decl::Move(MoveDecl {
        mover,
        mover_span,
        mode,
        times,
        moves,
    })
}

/// `on [WHO] TRIGGER [if COND]: ACTIONS`.
fn on_decl<'i>(it: impl Iterator<Item = Pair<'i, Rule>>) -> Decl {
    let mut agent = None;
    let mut trigger = None;
    let mut cond = None;
    let mut actions_ = Vec::new();
    for c in it {
        match c.as_rule() {
            Rule::ident => agent = Some(ident(c)),
            Rule::enter_trigger => trigger = Some(Trigger::Enter(pattern(first(c)))),
            Rule::move_kind => trigger = Some(Trigger::Move(move_kind(c))),
            Rule::rule_if => cond = Some(pred(first(c))),
            _ => actions_ = actions(c),
        }
    }
    Decl::On(OnDecl {
        agent,
        trigger: trigger.expect("an on rule has a trigger"),
        cond,
        actions: actions_,
    })
}

/// `when WHO on|sees PATTERN [if COND]: ACTIONS`.
fn when_decl<'i>(mut it: impl Iterator<Item = Pair<'i, Rule>>) -> Decl {
    let agent = ident(next(&mut it));
    let relation = if next(&mut it).as_rule() == Rule::sees {
        Relation::Sees
    } else {
        Relation::On
    };
    let pattern = pattern(next(&mut it));
    let mut cond = None;
    let mut acts = Vec::new();
    for c in it {
        match c.as_rule() {
            Rule::rule_if => cond = Some(pred(first(c))),
            _ => acts = actions(c),
        }
    }
    Decl::When(WhenDecl {
        agent,
        relation,
        pattern,
        cond,
        actions: acts,
    })
}

/// `carry PATTERN WAY`.
fn carry_decl<'i>(it: &mut impl Iterator<Item = Pair<'i, Rule>>, sp: Span) -> Decl {
    let pattern = pattern(next(it));
    let w = next(it);
    let way = if w.as_rule() == Rule::var {
        CarryWay::Var(ident(w))
    } else {
        CarryWay::Dir(
            Dir::named(w.as_str()).expect("a compass word is a direction"),
            span(&w),
        )
    };
    Decl::Carry(CarryDecl {
        pattern,
        way,
        span: sp,
    })
}

/// `beam NAME from PATTERN WAY [turning]`.
fn beam_decl<'i>(mut it: impl Iterator<Item = Pair<'i, Rule>>, sp: Span) -> Decl {
    let name = ident(next(&mut it));
    let Decl::Carry(c) = carry_decl(&mut it, sp) else {
        unreachable!("a carry declaration")
    };
    Decl::Beam(BeamDecl {
        name,
        pattern: c.pattern,
        way: c.way,
        turning: it.next().is_some(),
        span: sp,
    })
}

/// `field NAME = distance from PATTERN [through PATTERN, ...] [by DIR ...]
/// [else N]`.
fn field_decl<'i>(mut it: impl Iterator<Item = Pair<'i, Rule>>, sp: Span) -> Decl {
    let name = ident(next(&mut it));
    let from = pattern(next(&mut it));
    let mut d = FieldDecl {
        name,
        from,
        through: Vec::new(),
        by: Vec::new(),
        otherwise: None,
        span: sp,
    };
    for part in it {
        match part.as_rule() {
            Rule::field_through => d.through = inner(part).map(pattern).collect(),
            Rule::field_by => {
                d.by = inner(part)
                    .map(|c| {
                        let d = Dir::named(c.as_str()).expect("the grammar's compass words");
                        (d, span(&c))
                    })
                    .collect()
            }
            _ => d.otherwise = Some(int_expr(first(part))),
        }
    }
    Decl::Field(d)
}

/// `limit steps|cost <|<= N`.
fn limit_decl<'i>(mut it: impl Iterator<Item = Pair<'i, Rule>>, sp: Span) -> Decl {
    let measure = if next(&mut it).as_str().starts_with("cost") {
        Measure::Cost
    } else {
        Measure::Steps
    };
    let strict = next(&mut it).as_str() == "<";
    Decl::Limit(LimitDecl {
        measure,
        strict,
        bound: int_expr(next(&mut it)),
        span: sp,
    })
}

fn input_item(p: Pair<'_, Rule>) -> InputItem {
    let sp = span(&p);
    let rule = p.as_rule();
    let mut it = inner(p);
    match rule {
        Rule::cases_item => {
            let c = next(&mut it);
            let value = match c.as_rule() {
                Rule::until_eof => Cases::UntilEof,
                Rule::counted => Cases::Counted,
                Rule::single => Cases::Single,
                _ => Cases::UntilValues(inner(c).map(int).collect()),
            };
            InputItem::Cases(Spanned { value, span: sp })
        }
        Rule::header_item => InputItem::Header(it.map(ident).collect()),
        Rule::fill_item => InputItem::Fill(symbol(next(&mut it))),
        Rule::records_item => {
            let count = int_expr(next(&mut it));
            let symbol = symbol(next(&mut it));
            let col_first = first(next(&mut it)).as_rule() == Rule::col_first;
            let base = int(next(&mut it));
            InputItem::Records(Records {
                count,
                symbol,
                col_first,
                base,
                span: sp,
            })
        }
        _ => {
            let rows = int_expr(next(&mut it));
            let cols = int_expr(next(&mut it));
            let mut form = None;
            let mut blank = None;
            for f in it {
                if f.as_rule() == Rule::grid_blank {
                    blank = Some(symbol(first(f)));
                    continue;
                }
                form = Some(Spanned {
                    value: if f.as_str().starts_with("tokens") {
                        GridForm::Tokens
                    } else {
                        GridForm::List
                    },
                    span: span(&f),
                });
            }
            InputItem::Grid {
                rows,
                cols,
                form,
                blank,
                span: sp,
            }
        }
    }
}

fn tile_def(p: Pair<'_, Rule>) -> TileDef {
    let mut it = inner(p);
    let name = ident(next(&mut it));
    let mut def = TileDef {
        name,
        symbols: Vec::new(),
        domain: None,
        props: Vec::new(),
    };
    for c in it {
        match c.as_rule() {
            Rule::char_lit | Rule::string => def.symbols.push(symbol(c)),
            Rule::of_domain => def.domain = Some(ident(first(c))),
            _ => {
                let w = next(&mut c.into_inner());
                def.props.push(Ident {
                    name: w.as_str().to_string(),
                    span: span(&w),
                });
            }
        }
    }
    def
}

fn markers(p: Pair<'_, Rule>) -> Markers {
    let sp = span(&p);
    let mut m = Markers {
        symbols: Vec::new(),
        range: false,
        span: sp,
    };
    for c in inner(p) {
        match c.as_rule() {
            Rule::char_lit | Rule::string => m.symbols.push(symbol(c)),
            _ => m.range = true,
        }
    }
    m
}

fn agent_decl<'a>(it: impl Iterator<Item = Pair<'a, Rule>>, object: bool) -> AgentDecl {
    let mut name = None;
    let mut also = Vec::new();
    let mut lengthwise = None;
    let mut family = None;
    let mut start = None;
    let mut targets = None;
    let mut on = None;
    let mut props = Vec::new();
    let mut facing = None;
    let mut follows = None;
    for c in it {
        match c.as_rule() {
            Rule::ident if name.is_none() => name = Some(ident(c)),
            Rule::ident => on = Some(ident(c)),
            Rule::family => family = Some(int_expr(first(c))),
            Rule::lengthwise => lengthwise = Some(true),
            Rule::also => {
                let mut ai = inner(c);
                let sym = symbol(next(&mut ai));
                also.push((sym, ident(next(&mut ai))));
            }
            Rule::markers => start = Some(StartDecl::Markers(markers(c))),
            Rule::any_start => start = Some(StartDecl::Any(symbol(first(c)))),
            Rule::every_start => {
                start = Some(StartDecl::Every(symbol(first(c))));
            }
            Rule::at_start => {
                let sp = span(&c);
                let mut ai = inner(c);
                let r = int_expr(next(&mut ai));
                let col = int_expr(next(&mut ai));
                start = Some(StartDecl::At(r, col, sp));
            }
            Rule::target => {
                let t = first(c);
                targets = Some(match t.as_rule() {
                    Rule::layout_target => TargetDecl::Layout(ident(first(t))),
                    _ => TargetDecl::Markers(markers(t)),
                });
            }
            Rule::follows => follows = Some(ident(first(c))),
            Rule::facing => {
                let h = first(c);
                facing = Some(Spanned {
                    span: span(&h),
                    value: heading(h),
                });
            }
            _ => props.push(agent_property(c)),
        }
    }
    AgentDecl {
        object,
        piece: lengthwise,
        name: name.expect("the grammar gives a declaration its name"),
        family,
        start: start.expect("the grammar gives a declaration its start"),
        targets,
        on: on.expect("the grammar gives a declaration its tile"),
        also,
        props,
        facing,
        follows,
    }
}

/// A move list's item: a move or a set's name, and its cost.
fn move_item(p: Pair<'_, Rule>) -> MoveItem {
    let mut mi = inner(p);
    let w = next(&mut mi);
    let mut table = Vec::new();
    let what = match w.as_rule() {
        Rule::move_set => MoveWhat::Set(ident(first(w))),
        Rule::move_table => {
            let mut it = inner(w);
            let way = next(&mut it);
            let value = match way.as_rule() {
                Rule::turn if way.as_str().ends_with("left") => MoveKind::TurnLeft,
                Rule::turn => MoveKind::TurnRight,
                _ => {
                    MoveKind::Dir(Dir::named(way.as_str()).expect("a compass word is a direction"))
                }
            };
            for row in it {
                let sp = span(&row);
                let mut r = inner(row);
                let from = ident(next(&mut r));
                let to = ident(next(&mut r));
                let off = offset(next(&mut r));
                table.push(TableRow {
                    from,
                    to,
                    off,
                    span: sp,
                });
            }
            MoveWhat::Kind(Spanned {
                value,
                span: span(&way),
            })
        }
        _ => MoveWhat::Kind(move_kind(w)),
    };
    let mut guard = None;
    let mut cost = None;
    let mut letter = None;
    for c in mi {
        match c.as_rule() {
            Rule::move_if => guard = Some(pred(first(c))),
            Rule::letter => {
                let mut it = inner(c).filter(|x| x.as_rule() != Rule::kw_pushing);
                let walk = symbol(next(&mut it));
                letter = Some(Letter {
                    walk,
                    push: it.next().map(symbol),
                });
            }
            _ => cost = Some(price(c)),
        }
    }
    MoveItem {
        what,
        table,
        guard,
        cost,
        letter,
    }
}

fn move_kind(p: Pair<'_, Rule>) -> Spanned<MoveKind> {
    let sp = span(&p);
    let text = p.as_str();
    let first = p.clone().into_inner().next();
    if let Some(c) = first.clone()
        && c.as_rule() == Rule::slide
    {
        let way = c
            .into_inner()
            .find(|p| matches!(p.as_rule(), Rule::slide_dir | Rule::offset))
            .expect("a slide has a direction");
        let d = match way.as_rule() {
            Rule::offset => offset(way),
            _ => Dir::named(way.as_str()).expect("a slide's direction is a compass word"),
        };
        return Spanned {
            value: MoveKind::Slide(d),
            span: sp,
        };
    }
    if let Some(c) = first
        && c.as_rule() == Rule::offset
    {
        return Spanned {
            value: MoveKind::Dir(offset(c)),
            span: sp,
        };
    }
    let value = if text.starts_with("turn") {
        if text.ends_with("left") {
            MoveKind::TurnLeft
        } else {
            MoveKind::TurnRight
        }
    } else {
        move_kind_dir(text)
    };
    Spanned { value, span: sp }
}

/// `(dr, dc)`: numbers past an `i32` are kept as its bounds, which the
/// resolver reports as too far.
fn offset(p: Pair<'_, Rule>) -> Dir {
    let mut n = inner(p)
        .filter(|p| p.as_rule() == Rule::signed_int)
        .map(|p| {
            let t = p.as_str();
            t.parse::<i32>().unwrap_or(if t.starts_with('-') {
                i32::MIN
            } else {
                i32::MAX
            })
        });
    Dir {
        dr: n.next().expect("the grammar gives an offset two numbers"),
        dc: n.next().expect("the grammar gives an offset two numbers"),
    }
}

/// A direction word, `stay`, `forward` or `back` as a move.
fn move_kind_dir(text: &str) -> MoveKind {
    match text {
        "forward" => MoveKind::Forward,
        "back" => MoveKind::Back,
        // `stay` is no way.
        _ => MoveKind::Dir(Dir::named(text).unwrap_or(Dir { dr: 0, dc: 0 })),
    }
}

fn pattern(p: Pair<'_, Rule>) -> Pattern {
    let sp = span(&p);
    let mut it = inner(p);
    Pattern {
        tile: ident(next(&mut it)),
        arg: it.next().map(ident),
        span: sp,
    }
}

fn actions(p: Pair<'_, Rule>) -> Vec<Action> {
    inner(p)
        .map(|a| {
            let sp = span(&a);
            let a = first(a);
            let rule = a.as_rule();
            let mut it = inner(a);
            if rule == Rule::flag_action {
                let kind = match next(&mut it).as_str().trim() {
                    "set" => Verb::Set,
                    "clear" => Verb::Clear,
                    _ => Verb::Toggle,
                };
                Action {
                    kind: ActionKind::Flag(kind),
                    target: state_ref(next(&mut it)),
                    span: sp,
                }
            } else {
                let target = state_ref(next(&mut it));
                let op = match next(&mut it).as_str() {
                    "+=" => AssignOp::Add,
                    "-=" => AssignOp::Sub,
                    _ => AssignOp::Set,
                };
                Action {
                    kind: ActionKind::Counter(op, int_expr(next(&mut it))),
                    target,
                    span: sp,
                }
            }
        })
        .collect()
}

fn state_ref(p: Pair<'_, Rule>) -> StateRef {
    let sp = span(&p);
    let mut it = inner(p);
    StateRef {
        name: ident(next(&mut it)),
        index: it.next().map(ident),
        span: sp,
    }
}

fn place(p: Pair<'_, Rule>) -> Place {
    let c = first(p);
    match c.as_rule() {
        Rule::its_target => Place::ItsTarget(span(&c)),
        _ => Place::Tile(pattern(c)),
    }
}

fn cmp_op(op: &str) -> CmpOp {
    match op {
        "==" => CmpOp::Eq,
        "!=" => CmpOp::Ne,
        "<=" => CmpOp::Le,
        ">=" => CmpOp::Ge,
        "<" => CmpOp::Lt,
        _ => CmpOp::Gt,
    }
}

/// `row of hero - its row + 1`: signed terms.
fn pos_sum(p: Pair<'_, Rule>) -> Vec<(i64, PosTerm)> {
    let mut sign = 1;
    let mut out = Vec::new();
    for c in inner(p) {
        if c.as_rule() == Rule::add_op {
            sign = if c.as_str() == "-" { -1 } else { 1 };
            continue;
        }
        let t = first(c);
        let axis = |a: Pair<'_, Rule>| {
            if a.as_str() == "row" {
                Axis::Row
            } else {
                Axis::Column
            }
        };
        let term = match t.as_rule() {
            Rule::pos_of => {
                let mut it = inner(t);
                let a = axis(next(&mut it));
                PosTerm::Of(a, ident(next(&mut it)))
            }
            Rule::its_pos => {
                let sp = span(&t);
                PosTerm::Its(axis(first(t)), sp)
            }
            _ => PosTerm::Num(t.as_str().parse().unwrap_or(i64::MAX)),
        };
        out.push((sign, term));
    }
    out
}

fn pred(p: Pair<'_, Rule>) -> Pred {
    let sp = span(&p);
    match p.as_rule() {
        Rule::pred | Rule::conj => {
            let or = p.as_rule() == Rule::pred;
            let mut parts: Vec<Pred> = inner(p).map(pred).collect();
            if parts.len() == 1 {
                parts.remove(0)
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
            // `not not p` is `p`: a run of `not`s nests one level at most.
            let a = atom.expect("the grammar gives a negation its atom");
            if nots % 2 == 1 {
                Pred::Not(Box::new(a), sp)
            } else {
                a
            }
        }
        Rule::every_has => {
            let mut it = inner(p);
            let tile = pattern(next(&mut it));
            Pred::EveryHas(tile, ident(next(&mut it)), sp)
        }
        Rule::every_on | Rule::any_on | Rule::agent_on => {
            let rule = p.as_rule();
            let mut it = inner(p);
            let who = ident(next(&mut it));
            let pl = place(next(&mut it));
            match rule {
                Rule::every_on => Pred::Every(who, pl, sp),
                Rule::any_on => Pred::Any(who, pl, sp),
                _ => Pred::On(who, pl, sp),
            }
        }
        Rule::compare => {
            let mut it = inner(p);
            let target = state_ref(next(&mut it));
            let op = cmp_op(next(&mut it).as_str());
            Pred::Compare(target, op, int_expr(next(&mut it)), sp)
        }
        Rule::in_beam => {
            let mut it = inner(p);
            let who = ident(next(&mut it));
            Pred::InBeam(who, ident(next(&mut it)), sp)
        }
        Rule::num_compare => {
            let mut it = inner(p);
            let lhs = int_expr(next(&mut it));
            let op = cmp_op(next(&mut it).as_str());
            Pred::Numbers(lhs, op, int_expr(next(&mut it)), sp)
        }
        Rule::pos_compare => {
            let mut it = inner(p);
            let lhs = pos_sum(next(&mut it));
            let op = cmp_op(next(&mut it).as_str());
            Pred::Pos(lhs, op, pos_sum(next(&mut it)), sp)
        }
        Rule::pose_is => {
            let mut it = inner(p);
            let who = ident(next(&mut it));
            Pred::PoseIs(who, ident(next(&mut it)), sp)
        }
        Rule::agent_meets => {
            let mut it = inner(p).peekable();
            let quant = match it.peek().map(|x| x.as_rule()) {
                Some(Rule::every_word) => Some(true),
                Some(Rule::any_word) => Some(false),
                _ => None,
            };
            if quant.is_some() {
                it.next();
            }
            let who = ident(next(&mut it));
            Pred::Meets(quant, who, ident(next(&mut it)), sp)
        }
        Rule::agent_at => {
            let mut it = inner(p);
            let who = ident(next(&mut it));
            let r = int_expr(next(&mut it));
            let c = int_expr(next(&mut it));
            Pred::At(who, r, c, sp)
        }
        Rule::facing_is => {
            let mut it = inner(p);
            let who = ident(next(&mut it));
            Pred::Facing(who, heading(next(&mut it)), sp)
        }
        Rule::moving_is => {
            let way = first(p);
            if way.as_rule() == Rule::var {
                return Pred::MovingAs(ident(way), sp);
            }
            let d = Dir::named(way.as_str()).expect("a compass word is a direction");
            Pred::Moving(d, sp)
        }
        Rule::cell_is => cell_is(p, sp),
        Rule::all_flags => Pred::AllFlags(ident(first(p)), sp),
        Rule::any_flags => Pred::AnyFlag(ident(first(p)), sp),
        Rule::state_ref => Pred::Flag(state_ref(p)),
        r => unreachable!("the grammar has no predicate {r:?}"),
    }
}

/// `cell WHERE is PATTERN`, `cell WHERE has NAME`.
fn cell_is(p: Pair<'_, Rule>, sp: Span) -> Pred {
    let mut it = inner(p);
    let rel = first(next(&mut it));
    let at = match rel.as_rule() {
        Rule::offset => RelCell::Offset(offset(rel)),
        _ => match rel.as_str() {
            "here" => RelCell::Here,
            "ahead" => RelCell::Ahead,
            _ => RelCell::Beyond,
        },
    };
    let what = next(&mut it);
    let what = match what.as_rule() {
        Rule::cell_has => CellWhat::Has(ident(first(what))),
        _ => CellWhat::Is(pattern(first(what))),
    };
    Pred::Cell(at, what, sp)
}

/// A keyword or punctuation token, as written.
fn token(r: Rule, name: &str) -> Option<String> {
    let punct = match r {
        Rule::kw_colon => "`:`",
        Rule::kw_lbrace => "`{`",
        Rule::kw_rbrace => "`}`",
        Rule::kw_eq => "`=`",
        Rule::kw_rbracket => "`]`",
        Rule::kw_rparen => "`)`",
        Rule::kw_comma => "`,`",
        _ => return name.strip_prefix("kw_").map(|kw| format!("`{kw}`")),
    };
    Some(punct.to_string())
}

/// Says a grammar rule in words, for "expected ..." messages.
pub fn describe_rule(r: Rule) -> String {
    let name = format!("{r:?}");
    if let Some(t) = token(r, &name) {
        return t;
    }
    match r {
        Rule::EOI => "the end of the file",
        Rule::ident | Rule::ident_or_kw | Rule::ident_on => "a name",
        Rule::var => "a variable (`?c`)",
        Rule::int | Rule::signed_int => "a number",
        Rule::char_lit => "a quoted character like '#'",
        Rule::string => "a string in double quotes",
        Rule::puzzle_decl
        | Rule::input_decl
        | Rule::domain_decl
        | Rule::tiles_decl
        | Rule::agent_decl
        | Rule::object_decl
        | Rule::piece_decl
        | Rule::push_decl
        | Rule::flag_decl
        | Rule::counter_decl
        | Rule::layout_decl
        | Rule::move_decl
        | Rule::moves_decl
        | Rule::forbid_decl
        | Rule::enter_decl
        | Rule::on_decl
        | Rule::when_decl
        | Rule::goal_decl
        | Rule::limit_decl
        | Rule::output_decl => "a declaration (`tiles`, `agent`, `move`, `goal`, ...)",
        Rule::lengthwise => "`lengthwise`",
        Rule::also => "`,` and another marker with its tile (`, '+' on goal`)",
        Rule::every_has => "`every`",
        Rule::cases_item | Rule::header_item | Rule::grid_item | Rule::fill_item => {
            "`cases`, `header`, `grid` or `fill`"
        }
        Rule::grid_form => "`tokens` or `list`",
        Rule::until_eof | Rule::until_values => "`until`",
        Rule::counted => "`counted`",
        Rule::single => "`single`",
        Rule::tile_def => "a tile name",
        Rule::of_domain => "`of`",
        Rule::agent_property => "a property (`solid`, `opaque` or `optional`)",
        Rule::property => "a property (`solid`, `opaque`, `slippery` or `stops`)",
        Rule::family => "`[` and a family size",
        Rule::markers | Rule::any_start | Rule::every_start | Rule::at_start => {
            "a quoted marker like 'a', `any 'S'`, `every 'G'` or `at (row, column)`"
        }
        Rule::range_dots => "`..`",
        Rule::target | Rule::layout_target => "`target`",
        Rule::facing | Rule::facing_is => "`facing`",
        Rule::heading => "a heading (`north`, `east`, `south` or `west`)",
        Rule::flag_item | Rule::counter_item => "a name",
        Rule::index_decl => "`[`",
        Rule::wrap => "`wrap`",
        Rule::init => "`=`",
        Rule::mover => "an agent name or `all`",
        Rule::all_agents => "`all`",
        Rule::mode | Rule::at_once | Rule::in_turn | Rule::together => {
            "`at once`, `in turn` or `together`"
        }
        Rule::move_item | Rule::move_kind | Rule::direction | Rule::turn => {
            "a move (`north`, `east`, ..., `stay`, `forward`, `back`, `turn left`, `turn right`, \
             `slide north`, ...)"
        }
        Rule::slide | Rule::slide_dir => "a direction to slide in (`north`, `east`, ...)",
        Rule::offset => "an offset `(rows, columns)`",
        Rule::move_set => "a set of moves declared with `moves`",
        Rule::teleport_decl | Rule::carry_decl | Rule::beam_decl | Rule::field_decl => {
            "a declaration (`tiles`, `agent`, `move`, `goal`, ...)"
        }
        Rule::optional => "`optional`",
        Rule::same_cell | Rule::swap => "`same cell` or `swap`",
        Rule::enter_if | Rule::enter_cost => "`only if` or `costs`",
        Rule::pattern => "a tile name",
        Rule::enter_trigger => "`enter`",
        Rule::rule_if => "`if`",
        Rule::sees | Rule::stands_on => "`sees` or `on`",
        Rule::actions | Rule::action | Rule::action_verb | Rule::flag_action => {
            "an action (`set`, `clear`, `toggle`, or `NAME += N`, `-=`, `=`)"
        }
        Rule::counter_action | Rule::assign_op => "`+=`, `-=` or `=`",
        Rule::state_ref => "a flag or counter",
        Rule::measure => "`steps` or `cost`",
        Rule::limit_op => "`<=` or `<`",
        r => {
            return describe_condition_rule(r)
                .map_or_else(|| name.replace('_', " "), str::to_string);
        }
    }
    .to_string()
}

/// Says a rule of conditions, numbers and output in words (the rest of
/// [`describe_rule`]).
fn describe_condition_rule(r: Rule) -> Option<&'static str> {
    Some(match r {
        Rule::pred | Rule::conj | Rule::neg => "a condition",
        Rule::not_op => "`not`",
        Rule::every_on => "`every`",
        Rule::any_on | Rule::any_flags => "`any`",
        Rule::all_flags => "`all`",
        Rule::compare | Rule::num_compare | Rule::cmp_op => {
            "a comparison (`==`, `!=`, `<`, `<=`, `>`, `>=`)"
        }
        Rule::agent_on | Rule::agent_at => "an agent",
        Rule::moving_is => "`moving`",
        Rule::move_if => "`if`",
        Rule::cell_is => "`cell`",
        Rule::rel_cell | Rule::rel_word => {
            "`here`, `ahead`, `beyond` or an offset `(rows, columns)`"
        }
        Rule::cell_has | Rule::cell_tile => "`is` or `has`",
        Rule::compass => "a direction (`north`, `northeast`, ...)",
        Rule::place => "a tile or `its target`",
        Rule::its_target => "`its target`",
        Rule::int_expr | Rule::int_term | Rule::negated | Rule::template_expr => {
            "a number or an expression"
        }
        Rule::count_of => "`count`",
        Rule::field_at => "a field read at an agent (`fire(hero)`)",
        Rule::field_through => "`through`",
        Rule::field_by => "`by`",
        Rule::field_else => "`else`",
        Rule::answer => "`steps` or `cost`",
        Rule::add_op | Rule::mul_op | Rule::minus => "an operator",
        Rule::output_item | Rule::output_kind => {
            "`before`, `solved`, `unsolved`, `separator`, `stopped` or `after`"
        }
        _ => return None,
    })
}

/// The words an expected rule may start with: the candidates of a
/// did-you-mean for a misspelt keyword.
fn words_of(r: Rule) -> &'static [&'static str] {
    match r {
        Rule::puzzle_decl
        | Rule::input_decl
        | Rule::domain_decl
        | Rule::tiles_decl
        | Rule::agent_decl
        | Rule::flag_decl
        | Rule::counter_decl
        | Rule::layout_decl
        | Rule::move_decl
        | Rule::moves_decl
        | Rule::forbid_decl
        | Rule::enter_decl
        | Rule::on_decl
        | Rule::when_decl
        | Rule::teleport_decl
        | Rule::carry_decl
        | Rule::beam_decl
        | Rule::object_decl
        | Rule::piece_decl
        | Rule::push_decl
        | Rule::goal_decl
        | Rule::limit_decl
        | Rule::output_decl => &[
            "puzzle", "input", "domain", "tiles", "agent", "object", "piece", "flag", "counter",
            "layout", "move", "moves", "forbid", "enter", "on", "when", "teleport", "carry",
            "push", "goal", "limit", "output",
        ],
        Rule::cases_item | Rule::header_item | Rule::grid_item | Rule::fill_item => {
            &["cases", "header", "grid", "fill"]
        }
        Rule::sees | Rule::stands_on => &["sees", "on"],
        Rule::move_item | Rule::move_kind | Rule::direction | Rule::turn => &[
            "north",
            "south",
            "east",
            "west",
            "northeast",
            "northwest",
            "southeast",
            "southwest",
            "stay",
            "forward",
            "back",
            "turn",
            "slide",
        ],
        Rule::heading => &["north", "east", "south", "west"],
        Rule::compass | Rule::slide_dir => &crate::ast::COMPASS_WORDS,
        Rule::action | Rule::action_verb | Rule::flag_action | Rule::actions => {
            &["set", "clear", "toggle"]
        }
        Rule::output_item | Rule::output_kind => &[
            "before",
            "solved",
            "unsolved",
            "separator",
            "stopped",
            "after",
        ],
        Rule::agent_property => &["solid", "opaque", "optional"],
        Rule::property => &["solid", "opaque", "slippery", "stops"],
        Rule::until_eof | Rule::until_values => &["until"],
        Rule::counted => &["counted"],
        Rule::single => &["single"],
        Rule::same_cell | Rule::swap => &["same", "swap"],
        Rule::enter_if | Rule::enter_cost => &["only", "costs"],
        Rule::mode | Rule::at_once | Rule::in_turn | Rule::together => &["at", "in", "together"],
        Rule::measure => &["steps", "cost"],
        Rule::grid_form => &["tokens", "list"],
        Rule::facing | Rule::facing_is => &["facing"],
        Rule::target | Rule::layout_target => &["target"],
        Rule::wrap => &["wrap"],
        Rule::kw_on => &["on"],
        Rule::kw_of => &["of"],
        Rule::kw_if => &["if"],
        Rule::kw_only => &["only"],
        Rule::kw_enter => &["enter"],
        Rule::kw_once => &["once"],
        Rule::kw_turn => &["turn"],
        Rule::kw_cell => &["cell"],
        Rule::kw_until => &["until"],
        Rule::kw_target => &["target"],
        Rule::kw_costs => &["costs"],
        Rule::kw_facing => &["facing"],
        Rule::kw_left | Rule::kw_right => &["left", "right"],
        _ => &[],
    }
}

fn syntax_error(src: &str, e: pest::error::Error<Rule>) -> RuleError {
    use pest::error::{ErrorVariant, InputLocation};
    let pos = match e.location {
        InputLocation::Pos(p) => p,
        InputLocation::Span((s, _)) => s,
    };
    // The word at the error, and whether it is one of the language's.
    let word: String = src[pos..]
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    let is_keyword = !word.is_empty()
        && PuzParser::parse(Rule::keyword, &word).is_ok_and(|p| p.as_str().len() == word.len());
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
            // A word close to one the parser expected is a misspelt keyword.
            let names: Vec<String> = positives.iter().map(|r| format!("{r:?}")).collect();
            let mut candidates: Vec<&str> = positives
                .iter()
                .flat_map(|r| words_of(*r))
                .copied()
                .collect();
            candidates.extend(names.iter().filter_map(|n| n.strip_prefix("kw_")));
            // Where a declaration may start, its keywords are expected;
            // but a declaration starts a line: in the middle of one, a word
            // like `moving` is not a misspelt `move` (where only `on` is
            // expected, `onn` still is a misspelt `on`).
            let starts = declaration_starts();
            if src[..pos]
                .rsplit('\n')
                .next()
                .is_some_and(|l| !l.trim().is_empty())
                && starts.iter().all(|s| candidates.contains(&s.as_str()))
            {
                candidates.retain(|c| !starts.iter().any(|s| s == c));
            }
            candidates.sort_unstable();
            candidates.dedup();
            let close = candidates
                .iter()
                .map(|c| (strsim::jaro_winkler(&word, c), *c))
                .filter(|(score, c)| *score > 0.8 && *c != word)
                .max_by(|a, b| a.0.total_cmp(&b.0));
            let hint = if word == "moving" && !positives.contains(&Rule::moving_is) {
                "`moving DIR` is a condition by itself, on the step entering the cell: \
                 `enter up only if moving north`, joined to others by `and` or `or`"
                    .to_string()
            } else if is_keyword && positives.contains(&Rule::ident) {
                format!(
                    "`{word}` is a keyword of the language, and a keyword cannot be a name: \
                     rename it (`my_{word}`, say)"
                )
            } else if let Some((_, c)) = close.filter(|_| !word.is_empty()) {
                format!("did you mean `{c}`?")
            } else if negatives.contains(&Rule::keyword) || positives.contains(&Rule::ident) {
                "names are letters, digits and `_`, and must not be keywords".to_string()
            } else {
                "see the language reference in README.md".to_string()
            };
            (expected, hint)
        }
        ErrorVariant::CustomError { message } => (message.clone(), String::new()),
    };
    let found = found_at(&src[pos..], is_keyword);
    let len = src[pos..]
        .chars()
        .take_while(|c| !c.is_whitespace())
        .map(char::len_utf8)
        .sum::<usize>()
        .max(usize::from(pos < src.len()));
    // A block left open shows where the next declaration starts (a word
    // at the start of a line) or where the file ends: the `{` is the
    // place to look.
    let at_line_start = src[..pos].rsplit('\n').next() == Some("");
    let opener =
        unclosed_brace(&src[..pos]).filter(|_| at_line_start || src[pos..].trim().is_empty());
    let hint = match opener {
        Some(at) => format!(
            "the block opened on line {} is not closed: end it with `}}` before this",
            src[..at].matches('\n').count() + 1
        ),
        None => hint,
    };
    RuleError::Syntax {
        expected,
        span: (pos, len).into(),
        found,
        opener: opener.map(|at| (at, 1).into()),
        hint,
    }
}

/// What the text at a syntax error is, in words (`rest` the text from
/// there on).
fn found_at(rest: &str, is_keyword: bool) -> String {
    match rest.chars().next() {
        None => "the file ends here".to_string(),
        Some(_) => {
            let word: String = rest
                .chars()
                .take_while(|c| !c.is_whitespace())
                .take(20)
                .collect();
            if word.is_empty() {
                "found a blank here".to_string()
            } else if is_keyword {
                let keyword: String = word
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                format!("found the keyword `{keyword}`")
            } else {
                format!("found `{}`", crate::error::raw(&word))
            }
        }
    }
}

/// The keywords a declaration starts with, as the grammar says them (the
/// words expected where a file's first declaration would be).
fn declaration_starts() -> &'static [String] {
    static STARTS: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    STARTS.get_or_init(|| {
        let Err(e) = PuzParser::parse(Rule::file, "puzzle \"p\"\n?") else {
            return Vec::new();
        };
        let pest::error::ErrorVariant::ParsingError { positives, .. } = e.variant else {
            return Vec::new();
        };
        positives
            .iter()
            .flat_map(|r| {
                let own = format!("{r:?}").strip_prefix("kw_").map(str::to_string);
                own.into_iter()
                    .chain(words_of(*r).iter().map(|w| w.to_string()))
            })
            .collect()
    })
}

/// The offset of the innermost `{` still open at the end of `text`, if
/// any: braces in strings, character literals and comments do not count.
fn unclosed_brace(text: &str) -> Option<usize> {
    let mut open = Vec::new();
    let mut chars = text.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '{' => open.push(i),
            '}' => {
                open.pop();
            }
            '#' => {
                chars.by_ref().find(|&(_, c)| c == '\n');
            }
            '"' => {
                chars.by_ref().find(|&(_, c)| c == '"' || c == '\n');
            }
            '\'' => {
                // A character literal: `'x'` (or an escape, `'\''`).
                let mut rest = chars.clone();
                if let Some((_, body)) = rest.next() {
                    let body_end = if body == '\\' {
                        rest.next()
                    } else {
                        Some((0, body))
                    };
                    if body_end.is_some() && rest.next().is_some_and(|(_, c)| c == '\'') {
                        chars = rest;
                    }
                }
            }
            _ => {}
        }
    }
    open.pop()
}

fn or_list(words: &[String]) -> String {
    match words.len() {
        0 => String::new(),
        1 => words[0].clone(),
        n => format!("{} or {}", words[..n - 1].join(", "), words[n - 1]),
    }
}
