//! Small sets for unit tests.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::set::CamouflageSet;

/// A card: id and face rows.
pub(crate) type TestCard = (String, [String; 3]);
/// A deck: id and cards.
pub(crate) type TestDeck<'a> = (&'a str, Vec<TestCard>);

/// A set from decks of (deck id, [(card id, face rows)]) on one side `s` with keys `keys`.
pub(crate) fn set_of(keys: &str, decks: &[TestDeck]) -> CamouflageSet {
    let sides = serde_json::json!({
        "s": keys.chars().map(|k| (k.to_string(), serde_json::json!({"name": format!("pattern {k}")})))
            .collect::<serde_json::Map<_, _>>()
    });
    let decks: Vec<serde_json::Value> = decks
        .iter()
        .map(|(id, cards)| {
            serde_json::json!({
                "id": id,
                "cards": cards.iter().map(|(cid, rows)| serde_json::json!({"id": cid, "s": rows}))
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let json = serde_json::json!({
        "format": "tablejudge/camouflage-set@1", "name": "test", "sides": sides, "decks": decks
    });
    CamouflageSet::from_json(&json.to_string(), "test.json").unwrap()
}

fn rows(r: [&str; 3]) -> [String; 3] {
    r.map(str::to_owned)
}

/// Decks `a`..`h` of six cards whose squares are all pattern `a`: legality is pure geometry.
pub(crate) fn uniform_set() -> CamouflageSet {
    let decks: Vec<TestDeck> = ["a", "b", "c", "d", "e", "f", "g", "h"]
        .iter()
        .map(|&d| {
            let cards = (1..=6)
                .map(|i| (format!("{d}-{i}"), rows(["aaa", "a*a", "aaa"])))
                .collect();
            (d, cards)
        })
        .collect();
    set_of("a", &decks)
}

/// Deck `x`: x-1 = abc/d*e/fgh, x-2 = cxx/e*x/hxx (its left column is x-1's right column).
pub(crate) fn small_set() -> CamouflageSet {
    set_of(
        "abcdefghx",
        &[(
            "x",
            vec![
                ("x-1".into(), rows(["abc", "d*e", "fgh"])),
                ("x-2".into(), rows(["cxx", "e*x", "hxx"])),
            ],
        )],
    )
}

/// `decks` random decks of `per_deck` cards over `keys` pattern keys on one side.
pub(crate) fn random_set(seed: u64, decks: usize, per_deck: usize, keys: usize) -> CamouflageSet {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let alphabet: Vec<char> = "abcdefghij".chars().take(keys).collect();
    let key_str: String = alphabet.iter().collect();
    let ids: Vec<String> = (0..decks).map(|d| format!("d{d}")).collect();
    let decks: Vec<TestDeck> = ids
        .iter()
        .map(|id| {
            let cards = (0..per_deck)
                .map(|c| {
                    let face: [String; 3] = std::array::from_fn(|r| {
                        (0..3)
                            .map(|col| {
                                if (r, col) == (1, 1) {
                                    '*'
                                } else {
                                    *alphabet.choose(&mut rng).expect("keys > 0")
                                }
                            })
                            .collect()
                    });
                    (format!("{id}-{c}"), face)
                })
                .collect();
            (id.as_str(), cards)
        })
        .collect();
    set_of(&key_str, &decks)
}
