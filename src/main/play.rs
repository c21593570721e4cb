//! `puzzle play`: a case played by hand. The game, its commands and its
//! screen are the library's ([`puzzle::play`]); here are the keys and the
//! terminal (crossterm), or, without a terminal, lines of commands read
//! from stdin with the screen printed after each (for scripts and tests).

use crate::Outcome;
use crate::commands::{finish, load_with};
use crate::exit;
use crate::say::{Notice, notice};
use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::{cursor, execute, queue, style, terminal};
use miette::Report;
use puzzle::budget::{Budget, Limit, Limits};
use puzzle::play::{Asked, Command, Game, NoGame, Session};
use puzzle::task::Dir;
use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::time::Duration;

/// `puzzle play RULES INPUT --case N`.
pub fn play(
    rules: &Path,
    input: &Path,
    case: u64,
    opts: puzzle::run::Options,
) -> Result<Outcome, Report> {
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if !terminal && input == Path::new("-") {
        let report = miette::miette!(
            code = "puzzle::usage",
            help = "give the input as a file: without a terminal, stdin holds the commands",
            "`puzzle play` reads its commands from stdin, so it cannot read the input there too"
        );
        return Ok(Outcome::Report(report, exit::USAGE));
    }
    let (loaded, input) = match load_with(rules, input)? {
        Ok(both) => both,
        Err(o) => return Ok(o),
    };
    let n = case as usize;
    let raw = match puzzle::run::nth_case(&loaded.rules, &input, &opts, n) {
        Ok(Ok(raw)) => raw,
        Ok(Err(read)) => {
            return Err(miette::miette!(
                code = "puzzle::play::no_case",
                help = "--case counts from 1",
                "the input has {read} cases, not {n}"
            ));
        }
        Err(e) => return finish(Err(e)),
    };
    let game = match Game::new(&loaded.rules, raw, opts.search) {
        Ok(g) => g,
        Err(NoGame::Input(errors)) => return finish(Err(input.fail(errors, Some(n)))),
        Err(NoGame::NoStart) => {
            return Err(miette::miette!(
                code = "puzzle::play::no_start",
                "case {n} cannot be played: its start is forbidden, or leaves a counter's range"
            ));
        }
    };
    let title = format!("{}: case {n}", loaded.rules.title());
    let session = Session::new(game);
    if terminal {
        on_terminal(session, &title, opts.limits)
    } else {
        by_lines(session, &title, opts.limits)
    }
}

/// Without a terminal: one command a line from stdin, the screen printed
/// after each.
fn by_lines(mut session: Session<'_>, title: &str, limits: Limits) -> Result<Outcome, Report> {
    let mut out = std::io::stdout().lock();
    let mut shown = format!("{title}\n{}", session.screen());
    for line in std::io::stdin().lock().lines() {
        if let Err(e) = out.write_all(shown.as_bytes()) {
            return Ok(Outcome::Code(crate::say::stream_failed(&e)));
        }
        let line =
            line.map_err(|e| miette::miette!(code = "puzzle::io::read", "cannot read stdin: {e}"))?;
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            shown.clear();
            continue;
        }
        shown = format!("> {line}\n");
        let asked = match Command::parse(line) {
            Ok(cmd) => session.apply(cmd),
            Err(why) => {
                shown.push_str(&format!("{why}\n"));
                continue;
            }
        };
        if asked == Asked::Quit {
            shown.clear();
            break;
        }
        session.search(asked, &Budget::new(limits));
        shown.push_str(&session.screen());
    }
    match out.write_all(shown.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(Outcome::Code(exit::OK)),
        Err(e) => Ok(Outcome::Code(crate::say::stream_failed(&e))),
    }
}

/// Puts the terminal back as it was, however the game ends.
struct Restore;

impl Drop for Restore {
    fn drop(&mut self) {
        let _ = execute!(
            std::io::stdout(),
            cursor::Show,
            terminal::LeaveAlternateScreen
        );
        let _ = terminal::disable_raw_mode();
    }
}

/// The keys, said under the board.
fn keys(session: &Session<'_>) -> [&'static str; 2] {
    [
        if session.turns() {
            "keys: arrows/WASD move the agent, Tab chooses the next; 1-9 take a listed move"
        } else {
            "keys: arrows/WASD move; 1-9 take a listed move"
        },
        "      : types a move; u undo, r restart, h hint, q quit",
    ]
}

/// On a terminal: keys, the screen redrawn after each.
fn on_terminal(mut session: Session<'_>, title: &str, limits: Limits) -> Result<Outcome, Report> {
    let failed = |e: std::io::Error| miette::miette!(code = "puzzle::io::terminal", "{e}");
    terminal::enable_raw_mode().map_err(failed)?;
    let _restore = Restore;
    execute!(
        std::io::stdout(),
        terminal::EnterAlternateScreen,
        cursor::Hide
    )
    .map_err(failed)?;
    // The line being typed after `:`.
    let mut typing: Option<String> = None;
    loop {
        draw(&session, title, typing.as_deref()).map_err(failed)?;
        let Event::Key(key) = event::read().map_err(failed)? else {
            continue;
        };
        if key.kind != KeyEventKind::Press {
            continue;
        }
        let cmd = match &mut typing {
            Some(line) => match key.code {
                KeyCode::Enter => {
                    let line = typing.take().unwrap_or_default();
                    match Command::parse(&line) {
                        Ok(cmd) if !line.trim().is_empty() => cmd,
                        _ => continue,
                    }
                }
                KeyCode::Esc => {
                    typing = None;
                    continue;
                }
                KeyCode::Backspace => {
                    line.pop();
                    continue;
                }
                KeyCode::Char(c) => {
                    line.push(c);
                    continue;
                }
                _ => continue,
            },
            None => match command_of(key) {
                Some(Key::Command(cmd)) => cmd,
                Some(Key::Type) => {
                    typing = Some(String::new());
                    continue;
                }
                None => continue,
            },
        };
        let asked = session.apply(cmd);
        if asked == Asked::Quit {
            break;
        }
        if asked != Asked::Nothing {
            // The search runs beside the keys: Esc (or q, or Ctrl-C) stops it.
            draw(&session, title, None).map_err(failed)?;
            let budget = Budget::new(limits);
            std::thread::scope(|s| {
                let session = &mut session;
                let searching = s.spawn(|| session.search(asked, &budget));
                while !searching.is_finished() {
                    if let Ok(true) = event::poll(Duration::from_millis(50))
                        && let Ok(Event::Key(k)) = event::read()
                        && (matches!(k.code, KeyCode::Esc | KeyCode::Char('q')) || is_ctrl_c(k))
                    {
                        budget.stop_as(Limit::Interrupted);
                    }
                }
            });
        }
    }
    drop(_restore);
    if session.game.solved() {
        notice(Notice::Note, "puzzle::play::solved", "the goal was reached");
    }
    Ok(Outcome::Code(exit::OK))
}

fn is_ctrl_c(k: KeyEvent) -> bool {
    k.code == KeyCode::Char('c') && k.modifiers.contains(KeyModifiers::CONTROL)
}

/// What a key does outside of typing.
enum Key {
    Command(Command),
    /// Start typing a move.
    Type,
}

fn command_of(key: KeyEvent) -> Option<Key> {
    let toward = |d: Dir| Some(Key::Command(Command::Toward(d)));
    let [north, east, south, west] = Dir::COMPASS;
    if is_ctrl_c(key) {
        return Some(Key::Command(Command::Quit));
    }
    match key.code {
        KeyCode::Up | KeyCode::Char('w' | 'W') => toward(north),
        KeyCode::Down | KeyCode::Char('s' | 'S') => toward(south),
        KeyCode::Left | KeyCode::Char('a' | 'A') => toward(west),
        KeyCode::Right | KeyCode::Char('d' | 'D') => toward(east),
        KeyCode::Char(c @ '1'..='9') => Some(Key::Command(Command::Pick(
            c.to_digit(10).unwrap_or(1) as usize,
        ))),
        KeyCode::Tab => Some(Key::Command(Command::NextAgent)),
        KeyCode::Char('u' | 'z') | KeyCode::Backspace => Some(Key::Command(Command::Undo)),
        KeyCode::Char('r') => Some(Key::Command(Command::Restart)),
        KeyCode::Char('h' | '?') => Some(Key::Command(Command::Hint)),
        KeyCode::Char('q') | KeyCode::Esc => Some(Key::Command(Command::Quit)),
        KeyCode::Char(':') | KeyCode::Enter => Some(Key::Type),
        _ => None,
    }
}

/// The screen, from the top left: title, board, status, keys, and the
/// line being typed.
fn draw(session: &Session<'_>, title: &str, typing: Option<&str>) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    queue!(
        out,
        cursor::MoveTo(0, 0),
        terminal::Clear(terminal::ClearType::All)
    )?;
    let screen = session.screen();
    let lines = std::iter::once(title)
        .chain(screen.lines())
        .chain(keys(session));
    for line in lines {
        queue!(out, style::Print(line), cursor::MoveToNextLine(1))?;
    }
    if let Some(line) = typing {
        queue!(out, style::Print(format!("move: {line}_")))?;
    }
    out.flush()
}
