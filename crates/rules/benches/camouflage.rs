//! All legal placements of one card on a realistic 40-card Camouflage board.
//!
//! The board is the shipped reference set's animal side, built by random legal play from a
//! seed (a starting board, then cards of every deck at random legal places). The bar is
//! under 100 µs per card.
//!
//! ```text
//! cargo bench -p tablejudge-rules --bench camouflage
//! ```

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use tablejudge_rules::camouflage::{random_board, CamouflageSet, CardIdx, DeckIdx};

const REFERENCE: &str = include_str!("../../../models/camouflage/reference.json");

fn legal_moves(c: &mut Criterion) {
    let set = CamouflageSet::from_json(REFERENCE, "reference.json").expect("shipped set is valid");
    let side = set
        .side_by_name("animal")
        .expect("the reference set has an animal side");
    for wild in [false, true] {
        let board = random_board(&set, side, wild, DeckIdx(0), 40, 2024)
            .expect("the reference set's first deck has a starting board");
        assert_eq!(board.placed().len(), 40, "the board has 40 cards");
        let off_board: Vec<CardIdx> = (0..set.cards().len() as u16)
            .map(CardIdx)
            .filter(|c| !board.placed().iter().any(|p| p.placement.card == *c))
            .collect();
        let card = off_board[0];
        let face = set.face(card, side);
        let mut out = Vec::with_capacity(256);
        board.legal_moves_into(face, &mut out);
        let (lo, hi) = board.bounds().expect("the board is not empty");
        eprintln!(
            "40-card board{}: {}×{} squares, {} legal placements of {}",
            if wild { ", wild centres" } else { "" },
            hi.row - lo.row + 1,
            hi.col - lo.col + 1,
            out.len(),
            set.card(card).id
        );
        let name = if wild {
            "camouflage legal moves, one card, 40-card board, wild centres"
        } else {
            "camouflage legal moves, one card, 40-card board"
        };
        c.bench_function(name, |b| {
            b.iter(|| {
                out.clear();
                board.legal_moves_into(black_box(face), &mut out);
                black_box(out.len())
            })
        });
        // Every card not on the board, one after another ("where can any card go").
        let all = format!("{name}, each of {} cards in turn", off_board.len());
        c.bench_function(&all, |b| {
            b.iter(|| {
                let mut n = 0;
                for &card in &off_board {
                    out.clear();
                    board.legal_moves_into(set.face(card, side), &mut out);
                    n += out.len();
                }
                black_box(n)
            })
        });
    }
}

criterion_group!(benches, legal_moves);
criterion_main!(benches);
