//! Solver speed on the shipped reference set. The bar: every solution of all 55 missions in
//! under 20 ms on one core.
//!
//! ```text
//! cargo bench -p tablejudge-rules --bench layers
//! ```

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use tablejudge_rules::layers::{LayersSet, Solver};

const REFERENCE: &str = include_str!("../../../models/layers/reference.json");

fn reference() -> LayersSet {
    // The shipped file is checked by tests/layers_sets.rs; a broken one cannot be timed.
    LayersSet::from_json(REFERENCE, "models/layers/reference.json").expect("reference set loads")
}

fn all_solutions(solver: &Solver, set: &LayersSet, level: Option<usize>) -> usize {
    set.missions()
        .iter()
        .filter(|m| level.is_none_or(|l| m.layers() == l))
        .map(|m| solver.solutions(black_box(m.pattern()), m.layers()).len())
        .sum()
}

fn bench_solver(c: &mut Criterion) {
    let set = reference();
    let solver = Solver::new(&set);

    c.bench_function("layers/all 55 missions, every solution", |b| {
        b.iter(|| all_solutions(&solver, &set, None))
    });
    c.bench_function(
        "layers/all 55 missions, every solution + minimum, fresh solver",
        |b| {
            b.iter(|| {
                let solver = Solver::new(black_box(&set));
                let minimum: usize = set
                    .missions()
                    .iter()
                    .filter_map(|m| solver.min_layers(m.pattern()))
                    .sum();
                all_solutions(&solver, &set, None) + minimum
            })
        },
    );
    let mut by_level = c.benchmark_group("layers/by level");
    for level in 2..=5 {
        by_level.bench_function(format!("level {level}"), |b| {
            b.iter(|| all_solutions(&solver, &set, Some(level)))
        });
    }
    by_level.finish();
}

criterion_group!(benches, bench_solver);
criterion_main!(benches);
