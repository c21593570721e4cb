//! The command line, as data: each `tests/cli/*.trycmd` file is a session of
//! commands with their exact output and exit status.

#[test]
fn cli_cases() {
    trycmd::TestCases::new()
        .case("tests/cli/*.trycmd")
        .case("tests/cli/*.toml");
}
