//! `tablejudge render layers`, `render camouflage` and `render chessboard`

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rand::seq::SliceRandom;
use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use tablejudge_render::{random_locations_series, random_series};
use tablejudge_render::{
    render_camouflage, render_layers, CamouflageScene, CamouflageSceneSpec, Degradation,
    Distractors, LayersSceneSpec, SceneOptions, StackChoice,
};
use tablejudge_rules::camouflage::{
    check_arrangement, random_board, simulate_game_with_mistakes, simulate_not_my_stack, solve,
    Board, CamouflageSet, CardIdx, DeckIdx, History, PlacementRules, Play, Player, Puzzle, SideIdx,
};
use tablejudge_rules::Turn;
use tablejudge_vision::video::VideoFileWriter;

use crate::cli::{DegradationArg, DistractorsArg};
use crate::input::{load_camouflage_set, load_layers_set};
use crate::outcome::{BadInput, Outcome};

pub struct RenderLayers<'a> {
    pub set: &'a Path,
    pub out: &'a Path,
    pub n: usize,
    pub seed: u64,
    pub size: (u32, u32),
    pub degradation: DegradationArg,
    pub mission: Option<String>,
    pub near_miss: bool,
    pub distractors: DistractorsArg,
}

pub fn degradation(d: DegradationArg) -> Degradation {
    match d {
        DegradationArg::Clean => Degradation::Clean,
        DegradationArg::Realistic => Degradation::Realistic,
        DegradationArg::Harsh => Degradation::Harsh,
    }
}

pub fn layers(args: RenderLayers<'_>) -> Result<Outcome> {
    let set = load_layers_set(args.set)?;
    if let Some(id) = &args.mission {
        if set.mission(id).is_none() {
            return Err(BadInput(format!("{}: no mission {id:?}", args.set.display())).into());
        }
    }
    create_out(args.out)?;
    let stack = match (args.near_miss, args.mission.clone()) {
        (true, mission) => StackChoice::NearMiss { mission },
        (false, Some(mission)) => StackChoice::MissionSolution {
            mission: Some(mission),
        },
        (false, None) if set.missions().is_empty() => StackChoice::Random {
            min_layers: 2,
            max_layers: set.layers().len().min(5),
        },
        (false, None) => StackChoice::MissionSolution { mission: None },
    };
    let options = SceneOptions {
        width: args.size.0,
        height: args.size.1,
        stack,
        distractors: match args.distractors {
            DistractorsArg::None => Distractors::NONE,
            DistractorsArg::Some => Distractors::default(),
            DistractorsArg::All => Distractors::ALL,
        },
        degradation: degradation(args.degradation),
    };
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    for i in 0..args.n {
        let spec = LayersSceneSpec::random(&set, &mut rng, &options)
            .with_context(|| format!("scene {i}"))?;
        let scene = render_layers(&set, &spec).with_context(|| format!("rendering scene {i}"))?;
        let stem = args.out.join(format!("scene_{i:04}"));
        let jpg = write_photo(&stem, &scene.jpeg()?, &scene.truth)?;
        outln!(
            "{}  visible {}",
            jpg.display(),
            scene.truth.visible.join(" ")
        );
    }
    Ok(Outcome::Pass)
}

/// Writes `STEM.jpg` and its truth `STEM.truth.json`; returns the photo's path.
fn write_photo(stem: &Path, jpeg: &[u8], truth: &impl serde::Serialize) -> Result<PathBuf> {
    let jpg = stem.with_extension("jpg");
    std::fs::write(&jpg, jpeg).with_context(|| format!("writing {}", jpg.display()))?;
    let path = stem.with_extension("truth.json");
    std::fs::write(&path, serde_json::to_string_pretty(truth)?)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(jpg)
}

fn create_out(out: &Path) -> Result<()> {
    std::fs::create_dir_all(out).map_err(|e| {
        BadInput(format!(
            "{}: cannot create the output folder ({e})",
            out.display()
        ))
        .into()
    })
}

pub struct RenderCamouflage<'a> {
    pub set: &'a Path,
    pub out: &'a Path,
    pub n: usize,
    pub seed: u64,
    pub cards: usize,
    /// Whole games of this many players.
    pub series: Option<usize>,
    /// In games, the chance that a play is illegal; in puzzles, that one card is laid wrong.
    pub mistakes: f64,
    /// Render solo puzzles instead of boards: all of the set's in turn, or the one named.
    pub puzzles: Option<Option<&'a str>>,
    /// Games as a video file each instead of photos.
    pub video: bool,
    /// Games of Not My Stack!: a location per player instead of one board.
    pub not_my_stack: bool,
    pub side: Option<&'a str>,
    pub size: (u32, u32),
    pub degradation: DegradationArg,
}

/// The side named `name`, or the set's first.
pub fn camouflage_side(set: &CamouflageSet, file: &Path, name: Option<&str>) -> Result<SideIdx> {
    match name {
        None => Ok(SideIdx(0)),
        Some(n) => set.side_by_name(n).ok_or_else(|| {
            let sides: Vec<&str> = set.sides().iter().map(|s| s.name.as_str()).collect();
            BadInput(format!(
                "{}: no side {n:?}; its sides are {}",
                file.display(),
                sides.join(", ")
            ))
            .into()
        }),
    }
}

pub fn camouflage(args: RenderCamouflage<'_>) -> Result<Outcome> {
    let set = load_camouflage_set(args.set)?;
    let side = camouflage_side(&set, args.set, args.side)?;
    create_out(args.out)?;
    let mut rng = ChaCha8Rng::seed_from_u64(args.seed);
    if let Some(players) = args.series {
        for i in 0..args.n {
            let game = camouflage_game(&set, side, &args, players, i, &mut rng)?;
            outln!(
                "{}  {} photos, {} cards",
                game.dir.display(),
                game.photos,
                game.history.start.len() + game.history.plays.len()
            );
        }
        return Ok(Outcome::Pass);
    }
    if let Some(only) = args.puzzles {
        return camouflage_puzzles(&set, &args, only, &mut rng);
    }
    for i in 0..args.n {
        let start = DeckIdx(rng.gen_range(0..set.decks().len() as u16));
        let board = random_board(&set, side, false, start, args.cards, rng.gen())
            .map_err(|e| BadInput(format!("{}: {e}", args.set.display())))?;
        let spec = CamouflageSceneSpec::random(
            &set,
            &board,
            &mut rng,
            args.size,
            degradation(args.degradation),
        )
        .with_context(|| format!("scene {i}"))?;
        let scene =
            render_camouflage(&set, &spec).with_context(|| format!("rendering scene {i}"))?;
        let stem = args.out.join(format!("board_{i:04}"));
        let jpg = write_photo(&stem, &scene.jpeg()?, &scene.truth)?;
        outln!("{}  {} cards", jpg.display(), scene.truth.cards.len());
    }
    Ok(Outcome::Pass)
}

/// The `series.json` beside a rendered game's photos.
#[derive(serde::Serialize)]
struct Series {
    format: &'static str,
    /// The photos in the order taken.
    frames: Vec<SeriesEntry>,
    /// The game as it happened, for `camouflage replay` to be checked against.
    history: History,
}

/// A rendered game's video: its name, frame rate, and how many frames each shot is held. A
/// shot with a hand is held too short to pass for a settled table.
pub const GAME_VIDEO: &str = "game.avi";
const VIDEO_FPS: f64 = 8.0;
const HAND_FRAMES: usize = 2;
const BOARD_FRAMES: usize = 6;

#[derive(serde::Serialize)]
struct SeriesEntry {
    file: String,
    /// In a video, the shot's first frame.
    #[serde(skip_serializing_if = "Option::is_none")]
    video_frame: Option<usize>,
    /// Cards on the table.
    cards: usize,
    /// A hand is over the table.
    hand: bool,
}

/// Renders game `i` into `game_NNNN/` under the output folder: `players` players, each with a
/// deck of their own, from a starting board of a deck nobody picked (in Not My Stack!, each
/// from a card of their own at their own location), playing until nobody can. Returns the
/// folder and the game as it happened.
pub fn camouflage_game(
    set: &CamouflageSet,
    side: SideIdx,
    args: &RenderCamouflage<'_>,
    players: usize,
    i: usize,
    rng: &mut ChaCha8Rng,
) -> Result<RenderedGame> {
    let mut decks: Vec<DeckIdx> = (0..set.decks().len() as u16).map(DeckIdx).collect();
    if args.not_my_stack && players < 3 {
        return Err(BadInput(format!(
            "Not My Stack! is for 3 to 7 players, not {players}: give --players 3 or more"
        ))
        .into());
    }
    let needed = players + usize::from(!args.not_my_stack);
    if decks.len() < needed {
        return Err(BadInput(format!(
            "{}: {} decks are too few for {players} players{}",
            args.set.display(),
            decks.len(),
            if args.not_my_stack {
                ""
            } else {
                " and a starting deck"
            }
        ))
        .into());
    }
    decks.shuffle(rng);
    // In a video every card is laid by a hand seen over the table.
    let hand_chance = if args.video { 1.0 } else { 0.3 };
    let (history, frames) = if args.not_my_stack {
        let history = simulate_not_my_stack(
            set,
            side,
            false,
            &decks[..players],
            rng.gen(),
            args.mistakes,
        );
        let frames = random_locations_series(
            set,
            &history,
            rng,
            args.size,
            degradation(args.degradation),
            hand_chance,
        )
        .with_context(|| format!("game {i}"))?;
        (history, frames)
    } else {
        let (start, player_decks) = (decks[0], &decks[1..=players]);
        let (board, history) = one_board_game(set, side, start, player_decks, args, rng)?;
        let frames = random_series(
            set,
            &board,
            rng,
            args.size,
            degradation(args.degradation),
            hand_chance,
        )
        .with_context(|| format!("game {i}"))?;
        (history, frames)
    };
    let dir = args.out.join(format!("game_{i:04}"));
    create_out(&dir)?;
    let mut entries = Vec::with_capacity(frames.len());
    let mut video = if args.video {
        let path = dir.join(GAME_VIDEO);
        let writer = VideoFileWriter::create(&path, VIDEO_FPS, args.size)
            .with_context(|| format!("writing {}", path.display()))?;
        Some(writer)
    } else {
        None
    };
    let mut at = 0;
    for (k, frame) in frames.iter().enumerate() {
        let scene = render_camouflage(set, &frame.spec)
            .with_context(|| format!("rendering game {i}, photo {k}"))?;
        if let Some(writer) = &mut video {
            let hold = if frame.hand {
                HAND_FRAMES
            } else {
                BOARD_FRAMES
            };
            for _ in 0..hold {
                writer.write(&scene.image)?;
            }
            entries.push(SeriesEntry {
                file: GAME_VIDEO.into(),
                video_frame: Some(at),
                cards: frame.cards,
                hand: frame.hand,
            });
            at += hold;
        } else {
            let stem = dir.join(format!("frame_{k:04}"));
            write_photo(&stem, &scene.jpeg()?, &scene.truth)?;
            entries.push(SeriesEntry {
                file: format!("frame_{k:04}.jpg"),
                video_frame: None,
                cards: frame.cards,
                hand: frame.hand,
            });
        }
    }
    if let Some(writer) = video {
        writer.finish()?;
    }
    let series = Series {
        format: "tablejudge/camouflage-series@1",
        frames: entries,
        history,
    };
    let path = dir.join("series.json");
    std::fs::write(&path, serde_json::to_string_pretty(&series)?)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(RenderedGame {
        dir,
        photos: frames.len(),
        history: series.history,
    })
}

/// A game of one board from `start`'s starting board, played by `player_decks` until nobody
/// can, and its history.
fn one_board_game(
    set: &CamouflageSet,
    side: SideIdx,
    start: DeckIdx,
    player_decks: &[DeckIdx],
    args: &RenderCamouflage<'_>,
    rng: &mut ChaCha8Rng,
) -> Result<(Board, History)> {
    let (board, _) = simulate_game_with_mistakes(
        set,
        side,
        false,
        start,
        player_decks,
        rng.gen(),
        args.mistakes,
    )
    .map_err(|e| BadInput(format!("{}: {e}", args.set.display())))?;
    let placed: Vec<_> = board.placed().iter().map(|p| p.placement).collect();
    let history = History {
        side,
        players: player_decks
            .iter()
            .enumerate()
            .map(|(k, &deck)| Player {
                name: format!("player {}", k + 1),
                deck,
            })
            .collect(),
        start: placed[..3].to_vec(),
        plays: placed[3..]
            .iter()
            .map(|p| {
                // Past the starting board every card comes from a player's hand.
                let player = player_decks
                    .iter()
                    .position(|&d| d == set.card(p.card).deck)
                    .with_context(|| format!("card #{} is from no player's deck", p.card.0))?;
                Ok(Play {
                    player,
                    card: p.card,
                    centre: p.centre,
                    turn: p.turn,
                    time_ms: None,
                    location: None,
                })
            })
            .collect::<Result<_>>()?,
    };
    Ok((board, history))
}

/// A game rendered as a photo series.
pub struct RenderedGame {
    pub dir: PathBuf,
    /// Photos, or shots of the video.
    pub photos: usize,
    pub history: History,
}

/// The `puzzles.json` beside rendered puzzle photos: what each shows.
#[derive(serde::Serialize)]
struct PuzzleEntry {
    file: String,
    puzzle: String,
    /// The cards on the table solve the puzzle.
    solved: bool,
    /// How a card was laid wrong, if one was.
    mistake: Option<&'static str>,
}

fn camouflage_puzzles(
    set: &CamouflageSet,
    args: &RenderCamouflage<'_>,
    only: Option<&str>,
    rng: &mut ChaCha8Rng,
) -> Result<Outcome> {
    let puzzles: Vec<&Puzzle> = match only {
        Some(id) => vec![set
            .puzzle_by_id(id)
            .ok_or_else(|| BadInput(format!("{}: no puzzle {id:?}", args.set.display())))?],
        None => set.puzzles().iter().collect(),
    };
    if puzzles.is_empty() {
        return Err(BadInput(format!("{}: the set has no puzzles", args.set.display())).into());
    }
    let mut entries = Vec::with_capacity(args.n);
    for i in 0..args.n {
        let puzzle = puzzles[i % puzzles.len()];
        let shot = puzzle_scene(
            set,
            puzzle,
            args.mistakes,
            args.size,
            degradation(args.degradation),
            rng,
        )
        .with_context(|| format!("puzzle scene {i} ({})", puzzle.id))?;
        let stem = args.out.join(format!("puzzle_{i:04}"));
        let jpg = write_photo(&stem, &shot.scene.jpeg()?, &shot.scene.truth)?;
        outln!(
            "{}  puzzle {}, {}{}",
            jpg.display(),
            puzzle.id,
            if shot.solved { "solved" } else { "not solved" },
            shot.mistake
                .map(|m| format!(" (a card {m})"))
                .unwrap_or_default()
        );
        entries.push(PuzzleEntry {
            file: format!("puzzle_{i:04}.jpg"),
            puzzle: puzzle.id.clone(),
            solved: shot.solved,
            mistake: shot.mistake,
        });
    }
    let path = args.out.join("puzzles.json");
    std::fs::write(&path, serde_json::to_string_pretty(&entries)?)
        .with_context(|| format!("writing {}", path.display()))?;
    Ok(Outcome::Pass)
}

/// A rendered photo of a puzzle's cards on the table.
pub struct PuzzleShot {
    pub scene: CamouflageScene,
    /// They solve the puzzle (by the rules, not by how the photo looks).
    pub solved: bool,
    pub mistake: Option<&'static str>,
}

/// Lays `puzzle`'s solution and, with chance `mistakes`, lays one card wrong: turned, swapped
/// for a card not in the puzzle, moved one square, or left out. Renders the table.
pub fn puzzle_scene(
    set: &CamouflageSet,
    puzzle: &Puzzle,
    mistakes: f64,
    size: (u32, u32),
    degradation: Degradation,
    rng: &mut ChaCha8Rng,
) -> Result<PuzzleShot> {
    let mut laid = solve(set, puzzle)
        .ok_or_else(|| anyhow::anyhow!("puzzle {} has no solution", puzzle.id))?;
    let mistake = (rng.gen::<f64>() < mistakes).then(|| {
        let k = rng.gen_range(0..laid.len());
        match rng.gen_range(0..4) {
            0 => {
                laid[k].turn = laid[k]
                    .turn
                    .then(Turn::from_quarter_turns(rng.gen_range(1..4)));
                "turned"
            }
            1 => {
                let others: Vec<CardIdx> = (0..set.cards().len() as u16)
                    .map(CardIdx)
                    .filter(|c| !puzzle.cards.contains(c))
                    .collect();
                if let Some(&c) = others.choose(rng) {
                    laid[k].card = c;
                }
                "swapped"
            }
            2 => {
                let (dr, dc) = *[(0, 1), (0, -1), (1, 0), (-1, 0)]
                    .choose(rng)
                    .expect("four");
                laid[k].centre = laid[k].centre.offset(dr, dc);
                "moved"
            }
            _ => {
                laid.remove(k);
                "left out"
            }
        }
    });
    let solved = check_arrangement(set, puzzle, &laid).is_ok();
    let mut board = Board::new(puzzle.side, PlacementRules::puzzle(puzzle.wild_centres));
    for &p in &laid {
        board.place(set, p);
    }
    let spec = CamouflageSceneSpec::random(set, &board, rng, size, degradation)?;
    let scene = render_camouflage(set, &spec)?;
    Ok(PuzzleShot {
        scene,
        solved,
        mistake,
    })
}

pub struct RenderChessboard<'a> {
    pub out: &'a Path,
    pub n: usize,
    pub seed: u64,
    pub board: (u32, u32),
    pub size: (u32, u32),
    pub focal: Option<f64>,
    pub k1: f64,
}

/// Format tag of `lens.json`, the truth of `render chessboard`.
pub const CHESSBOARD_TRUTH_FORMAT: &str = "tablejudge/chessboard-truth@1";

/// Chessboard photos through one known lens, and `lens.json`: the lens, and each photo's view
/// with where the lens put every inner corner.
pub fn chessboard(args: RenderChessboard<'_>) -> Result<Outcome> {
    use rayon::prelude::*;
    use tablejudge_render::{
        chessboard_views, corner_pixel, render_chessboard, Chessboard, LensSpec,
    };

    create_out(args.out)?;
    let mut lens = LensSpec::webcam(args.size.0, args.size.1);
    if let Some(f) = args.focal {
        if !(f.is_finite() && f > 0.0) {
            return Err(BadInput(format!(
                "--focal {f}: give a focal length in pixels above 0"
            ))
            .into());
        }
        lens.focal_px = f;
    }
    lens.distortion_k1 = args.k1;
    let board = Chessboard {
        cols: args.board.0,
        rows: args.board.1,
    };
    let views = chessboard_views(&lens, board, args.n, args.seed);
    let photos: Vec<serde_json::Value> = views
        .par_iter()
        .enumerate()
        .map(|(i, view)| -> Result<serde_json::Value> {
            let image = render_chessboard(view, board);
            let name = format!("view_{i:02}.jpg");
            let path = args.out.join(&name);
            let jpeg = tablejudge_render::encode_jpeg(&image, view.sensor.jpeg_quality)?;
            std::fs::write(&path, jpeg).with_context(|| format!("writing {}", path.display()))?;
            let corners: Vec<Option<[f64; 2]>> = (0..board.rows)
                .flat_map(|j| (0..board.cols).map(move |i| (i, j)))
                .map(|(i, j)| corner_pixel(view, board, i, j))
                .collect();
            Ok(serde_json::json!({ "photo": name, "view": view, "corners": corners }))
        })
        .collect::<Result<_>>()?;
    let truth = serde_json::json!({
        "format": CHESSBOARD_TRUTH_FORMAT,
        "lens": lens,
        "board": board,
        "photos": photos,
    });
    let path = args.out.join("lens.json");
    std::fs::write(&path, serde_json::to_string_pretty(&truth)?)
        .with_context(|| format!("writing {}", path.display()))?;
    outln!(
        "{} photos of a {}x{} chessboard through a lens of focal length {:.1} px, k1 {}: {}",
        views.len(),
        board.cols,
        board.rows,
        lens.focal_px,
        lens.distortion_k1,
        args.out.display()
    );
    Ok(Outcome::Pass)
}
