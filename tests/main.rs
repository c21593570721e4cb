//! Every integration test, in one binary (the crate is linked once for
//! all of them): each module is a file of this folder, `common` their
//! shared helpers.

mod common;

mod burrow;
mod cleaning;
mod cli;
mod cluster;
mod deadline;
mod eight;
mod fire;
mod halloween;
mod hideseek;
mod house;
mod ice;
mod iceblocks;
mod icecave;
mod icecoins;
mod ida;
mod kernels;
mod keyring;
mod keytask;
mod language;
mod levers;
mod lsp;
mod monocycle;
mod mutation;
mod patterns;
mod pieces;
mod play;
mod portals;
mod pushing;
mod render;
mod rescue;
mod robots;
mod serve;
mod shared;
mod sokoban;
mod stores;
mod strategies;
mod streams;
mod time;
mod traces;
mod ui;
mod ways;
