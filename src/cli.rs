//! Command-line arguments (clap). Parsing only; the commands live in `commands/`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Verify physical tabletop layouts: Layers+ stacks, Camouflage boards, and their set files.
///
/// Exit status: 0 passes, 1 read with confidence and fails, 2 bad input or usage,
/// 3 undecided (the input could not be judged confidently; the message says what to retake).
#[derive(Debug, Parser)]
#[command(name = "tablejudge", version, propagate_version = true)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Set files: palettes, Layers+ sets, Camouflage sets.
    #[command(subcommand)]
    Set(SetCommand),
    /// Layers+: stacks of double-sided layers with holes vs a mission card.
    #[command(subcommand)]
    Layers(LayersCommand),
    /// Camouflage: overlapping 3×3 cards on one lattice of squares.
    #[command(subcommand)]
    Camouflage(CamouflageCommand),
    /// Coloured grids in photos.
    #[command(subcommand)]
    Grid(GridCommand),
    /// Synthetic photos with ground truth, for tests, evaluation and demos.
    #[command(subcommand)]
    Render(RenderCommand),
    /// Measure accuracy and speed of the real pipeline on rendered scenes.
    #[command(subcommand)]
    Eval(EvalCommand),
    /// Watch the table live through a webcam (or a video, or photos) and announce each new
    /// verdict (Layers+) or card laid (Camouflage) once the scene has been still for a moment.
    ///
    /// A preview window shows the camera image with the grid or board, what was read and the
    /// verdict (q or Esc quits); `--headless` prints the same events as JSON lines instead.
    /// When the frames end: Layers+ exits 0, 1 or 3 as the last verdict (3 when none was
    /// reached); Camouflage prints the game's scores and exits as `camouflage replay` does;
    /// 2 for bad input.
    Watch(WatchArgs),
    /// Judge every photo of a folder (and its subfolders) in parallel, with a progress bar.
    ///
    /// Each photo's result is appended to OUT/results.jsonl as it finishes, its annotated
    /// photo and thumbnail written under OUT, and OUT/report.html made at the end. A photo
    /// that cannot be read is reported and skipped; `--resume` carries on an interrupted batch.
    /// Exit 1 when some stack mismatches, else 2 when some photo could not be read, else 3
    /// when some photo is undecided, else 0.
    Batch(BatchArgs),
    /// Calibrate the camera: its lens (from chessboard photos) or its colours (from a chart
    /// or the judge mat).
    #[command(subcommand)]
    Calibrate(CalibrateCommand),
    /// Write the judge mat to print: an A4 sheet with ArUco markers and reference patches.
    ///
    /// An ArUco marker in each corner and a strip of grey and coloured patches. With the mat
    /// under the stack or the cards, every photo command reads the table from straight above
    /// it, white-balanced by its patches.
    Mat {
        /// Where to write it: a .pdf (to print at 100%) or a .png.
        #[arg(long, value_name = "MAT.pdf", value_parser = output_file)]
        out: PathBuf,
        /// Resolution of a .png, dots per inch.
        #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(50..=1200))]
        dpi: u32,
    },
    /// List the cameras this machine offers, with the formats each can send.
    Cameras {
        #[command(flatten)]
        output: Output,
    },
}

#[derive(Debug, Subcommand)]
pub enum CalibrateCommand {
    /// Lens intrinsics (focal lengths, principal point) and distortion from 10 or more photos
    /// of a printed chessboard taken with the camera from different angles (OpenCV), reported
    /// with the RMS reprojection error and saved for `--camera-calibration`.
    ///
    /// Exit 0 when calibrated; 3 when too few photos show the whole board (the message says
    /// what to retake); 2 for bad input.
    Camera {
        /// The chessboard's inner corners, COLSxROWS (a board of 10x7 squares has 9x6).
        #[arg(long, value_parser = parse_board)]
        board: (u32, u32),
        /// The photos, or folders of them.
        #[arg(required = true)]
        photos: Vec<PathBuf>,
        /// Where to save the calibration (tablejudge/camera@1).
        #[arg(long, default_value = "calibration/camera.json", value_name = "FILE")]
        out: PathBuf,
        #[command(flatten)]
        output: Output,
    },
    /// A colour correction from a chart of known patches in a photo (the judge mat's strip
    /// when the mat is in it, else the classic 24-patch chart, or the palette `--chart`
    /// names): the 3×3 matrix on linear RGB that takes the photo's patches nearest their
    /// printed colours, saved for `--colour-calibration`.
    ///
    /// Exit 0 when fitted; 3 when the chart is not found or not read surely (the message says
    /// what to retake); 2 for bad input.
    Colour {
        /// The photo with the chart in it, under the light to correct for.
        photo: PathBuf,
        /// The chart's palette (tablejudge/palette@1), its colours row by row.
        #[arg(long, value_name = "PALETTE.json")]
        chart: Option<PathBuf>,
        /// The chart's rows and columns of patches.
        #[arg(long, default_value_t = 4)]
        rows: usize,
        #[arg(long, default_value_t = 6)]
        cols: usize,
        /// Where to save the correction (tablejudge/colour@1).
        #[arg(long, default_value = "calibration/colour.json", value_name = "FILE")]
        out: PathBuf,
        #[command(flatten)]
        output: Output,
    },
}

/// A chessboard's inner corners, COLSxROWS, each 2 to 64.
fn parse_board(s: &str) -> Result<(u32, u32), String> {
    let (c, r) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{s:?} is not COLSxROWS, e.g. 9x6 (inner corners)"))?;
    let n = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|v| (2..=64).contains(v))
            .ok_or_else(|| format!("{v:?} is not a count of inner corners (2 to 64)"))
    };
    Ok((n(c)?, n(r)?))
}

/// Where a command's frames come from: exactly one of these.
#[derive(Debug, Clone, Args)]
#[group(required = true, multiple = false)]
pub struct FrameSourceArgs {
    /// A webcam, by number (0 is the first; `tablejudge cameras` lists them).
    #[arg(long, value_name = "N")]
    pub camera: Option<u32>,
    /// A video file, a folder of photos or one photo, watched as a webcam would be.
    #[arg(long, value_name = "PATH")]
    pub source: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct WatchArgs {
    #[command(flatten)]
    pub frames: FrameSourceArgs,
    /// The webcam's frame size to ask for (the nearest it offers is taken).
    #[arg(long, default_value = "1280x720", value_parser = parse_size)]
    pub camera_size: (u32, u32),
    /// The game on the table.
    #[arg(long, value_enum)]
    pub game: GameArg,
    /// The set file of the game.
    #[arg(long)]
    pub set: PathBuf,
    #[command(flatten)]
    pub mission: WatchMission,
    /// Camouflage: the game played (not-my-stack is replayed from photos or video with
    /// `camouflage replay`).
    #[arg(long, value_enum)]
    pub mode: Option<ModeArg>,
    /// Camouflage: the Centers Wild variant.
    #[arg(long)]
    pub wild_centers: bool,
    /// Camouflage: the side face up (whichever the first board shows when omitted).
    #[arg(long)]
    pub side: Option<String>,
    /// How long the scene must be still, seconds, before it is judged.
    #[arg(long, default_value_t = 0.5, value_parser = parse_seconds)]
    pub settle: f64,
    /// No window: print every event as a line of JSON on standard output.
    #[arg(long)]
    pub headless: bool,
    /// Write the annotated frame of every new verdict or card into this folder.
    #[arg(long, value_name = "DIR", value_parser = output_dir)]
    pub annotate: Option<PathBuf>,
    /// A lens calibration (tablejudge/camera@1).
    #[arg(long, value_name = "FILE")]
    pub camera_calibration: Option<PathBuf>,
    /// A colour calibration (tablejudge/colour@1).
    #[arg(long, value_name = "FILE")]
    pub colour_calibration: Option<PathBuf>,
}

/// Layers+: the mission a watched stack is judged against (at most one of these; one is
/// needed with `--game layers`).
#[derive(Debug, Clone, Args)]
#[group(required = false, multiple = false)]
pub struct WatchMission {
    /// A mission of the set, by id (e.g. 3-07).
    #[arg(long)]
    pub mission: Option<String>,
    /// A photo of the mission card alone.
    #[arg(long, value_name = "CARD.jpg")]
    pub mission_photo: Option<PathBuf>,
    /// The mission card lies beside the stack, in view.
    #[arg(long)]
    pub mission_in_photo: bool,
}

impl WatchMission {
    /// The mission source, when one was given.
    pub fn source(&self) -> Option<MissionSource> {
        (self.mission.is_some() || self.mission_photo.is_some() || self.mission_in_photo).then(
            || MissionSource {
                mission: self.mission.clone(),
                mission_photo: self.mission_photo.clone(),
                mission_in_photo: self.mission_in_photo,
            },
        )
    }
}

#[derive(Debug, Args)]
pub struct BatchArgs {
    /// The folder of photos (.jpg, .jpeg, .png; subfolders too).
    pub dir: PathBuf,
    /// The game in the photos.
    #[arg(long, value_enum)]
    pub game: GameArg,
    /// The set file of the game.
    #[arg(long)]
    pub set: PathBuf,
    #[command(flatten)]
    pub mission: MissionSource,
    /// The folder for results.jsonl, report.html and the annotated photos (created).
    #[arg(long, value_name = "OUT", value_parser = output_dir)]
    pub out: PathBuf,
    /// Carry on a batch whose results.jsonl is in OUT: the photos it has are not judged again.
    #[arg(long)]
    pub resume: bool,
    /// Photos judged at once (the number of cores when omitted).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u16).range(1..=1024))]
    pub jobs: Option<u16>,
    /// A lens calibration (tablejudge/camera@1).
    #[arg(long, value_name = "FILE")]
    pub camera_calibration: Option<PathBuf>,
    /// A colour calibration (tablejudge/colour@1).
    #[arg(long, value_name = "FILE")]
    pub colour_calibration: Option<PathBuf>,
    #[command(flatten)]
    pub output: Output,
}

/// The games `watch` and `batch` judge.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum GameArg {
    /// Layers+: the stack on its player card against a mission.
    Layers,
    /// Camouflage: each card laid, who laid it and whether it was legal; the scores at the end.
    Camouflage,
}

#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Render N scenes of a set (half matching a mission, half near-misses 1-3 cells off), run
    /// the photo pipeline on their JPEGs, and report per-cell error, verdict accuracy, false
    /// accepts and rejects, the undecided rate and timing.
    Layers {
        /// The Layers+ set file.
        #[arg(long)]
        set: PathBuf,
        #[arg(long, default_value_t = 100)]
        n: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        #[arg(long, default_value = "1920x1080", value_parser = parse_size)]
        size: (u32, u32),
        #[arg(long, value_enum, default_value_t = DegradationArg::Realistic)]
        degradation: DegradationArg,
        /// Save the JPEG, truth and result (mission, verdict, reason) of every scene not
        /// judged right, or with a misread cell, into this folder.
        #[arg(long, value_name = "DIR", value_parser = output_dir)]
        failures: Option<PathBuf>,
        /// Evaluate only these scenes of the N (indices as a full run's JSON numbers them),
        /// and none without a stack: to look again at a failure.
        #[arg(long, value_name = "INDEX,...", value_delimiter = ',')]
        only: Vec<usize>,
        #[command(flatten)]
        output: Output,
    },
    /// Render N Camouflage games as photo series (hands over the table in some photos),
    /// replay each from its JPEGs as `camouflage replay` does, and report the placements
    /// found, legality accuracy, exact final scores, trusted-but-wrong replays and timing.
    Camouflage {
        /// The Camouflage set file.
        #[arg(long)]
        set: PathBuf,
        #[arg(long, default_value_t = 20)]
        n: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Players in each game (2 to 6).
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(2..=6))]
        players: u8,
        /// The chance that a play is a mistake: a card laid against the others but breaking a
        /// placement rule.
        #[arg(long, default_value_t = 0.05, value_parser = parse_chance)]
        mistakes: f64,
        /// The game scored.
        #[arg(long, value_enum, default_value_t = ModeArg::Cover)]
        mode: ModeArg,
        /// The Centers Wild variant.
        #[arg(long)]
        wild_centers: bool,
        /// The side face up (the set's first when omitted).
        #[arg(long)]
        side: Option<String>,
        #[arg(long, default_value = "1280x720", value_parser = parse_size)]
        size: (u32, u32),
        #[arg(long, value_enum, default_value_t = DegradationArg::Realistic)]
        degradation: DegradationArg,
        /// Keep the rendered photos in this folder (one `game_NNNN/` per game).
        #[arg(long, value_name = "DIR", value_parser = output_dir)]
        keep: Option<PathBuf>,
        /// Render each game as a video (`render camouflage --series --video`) and replay it
        /// from the video: a hand lays every card, and the frames read are those where the
        /// table settled.
        #[arg(long)]
        video: bool,
        /// Replay each game as `watch --game camouflage` follows a game live: one scene after
        /// another as it settles, each card announced once a later scene agrees, the last
        /// scene read again at the end (instead of `camouflage replay`'s runs in parallel).
        #[arg(long)]
        live: bool,
        #[command(flatten)]
        output: Output,
    },
    /// Render N photos of the set's solo puzzles (in turn), some with a card laid wrong,
    /// judge each from its JPEG as `camouflage puzzle` does, and report verdicts against the
    /// rules' verdict on the cards as laid: right, undecided, and trusted-but-wrong. The
    /// photos are those of `render camouflage --puzzles` with the same options.
    CamouflagePuzzle {
        /// The Camouflage set file (with puzzles).
        #[arg(long)]
        set: PathBuf,
        #[arg(long, default_value_t = 40)]
        n: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The chance that one card is laid wrong (turned, swapped, moved or left out).
        #[arg(long, default_value_t = 0.5, value_parser = parse_chance)]
        mistakes: f64,
        #[arg(long, default_value = "1280x720", value_parser = parse_size)]
        size: (u32, u32),
        #[arg(long, value_enum, default_value_t = DegradationArg::Realistic)]
        degradation: DegradationArg,
        #[command(flatten)]
        output: Output,
    },
}

#[derive(Debug, Subcommand)]
pub enum GridCommand {
    /// Find the most prominent ROWS×COLS grid of coloured cells in a photo and read it.
    ///
    /// Exit 0 when read; 3 when no grid could be read confidently (the message says what to
    /// retake); 2 for bad input.
    Read {
        /// The photo (JPEG or PNG).
        photo: PathBuf,
        #[arg(long)]
        rows: usize,
        #[arg(long)]
        cols: usize,
        /// A palette file: each cell gets a label and a confidence.
        #[arg(long)]
        palette: Option<PathBuf>,
        /// With a palette, cells below this confidence make the read undecided.
        #[arg(long, default_value_t = 0.8)]
        min_confidence: f32,
        #[command(flatten)]
        photo_options: PhotoOptions,
        #[command(flatten)]
        output: Output,
    },
}

#[derive(Debug, Subcommand)]
pub enum RenderCommand {
    /// Render Layers+ scenes of a set: JPEG photos with `.truth.json` ground truth beside them.
    Layers {
        /// The Layers+ set file.
        #[arg(long)]
        set: PathBuf,
        /// The folder to write into (created if missing).
        #[arg(long, value_parser = output_dir)]
        out: PathBuf,
        /// How many scenes.
        #[arg(long, default_value_t = 1)]
        n: usize,
        /// Random seed: the same seed renders the same scenes.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Image size, WIDTHxHEIGHT.
        #[arg(long, default_value = "1920x1080", value_parser = parse_size)]
        size: (u32, u32),
        /// How degraded the photos are.
        #[arg(long, value_enum, default_value_t = DegradationArg::Realistic)]
        degradation: DegradationArg,
        /// Build the stack from this mission's solution (a random mission when omitted).
        #[arg(long)]
        mission: Option<String>,
        /// A near-miss: the mission's solution with one layer changed.
        #[arg(long)]
        near_miss: bool,
        /// Which distractors may lie on the table.
        #[arg(long, value_enum, default_value_t = DistractorsArg::Some)]
        distractors: DistractorsArg,
    },
    /// Render photos of a chessboard lying on the table, through one known lens from many
    /// angles, for `calibrate camera`: `view_NN.jpg` and `lens.json` (the lens and each view).
    Chessboard {
        /// The folder to write into (created if missing).
        #[arg(long, value_parser = output_dir)]
        out: PathBuf,
        /// How many photos.
        #[arg(long, default_value_t = 12)]
        n: usize,
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The chessboard's inner corners, COLSxROWS.
        #[arg(long, default_value = "9x6", value_parser = parse_board)]
        board: (u32, u32),
        /// Image size, WIDTHxHEIGHT.
        #[arg(long, default_value = "1280x720", value_parser = parse_size)]
        size: (u32, u32),
        /// The lens's focal length in pixels (0.78 of the width, about 65° across, if omitted).
        #[arg(long)]
        focal: Option<f64>,
        /// The lens's radial distortion (positive: barrel).
        #[arg(long, default_value_t = 0.06, allow_negative_numbers = true)]
        k1: f64,
    },
    /// Render Camouflage boards of a set, played at random from a starting board: JPEG photos
    /// with `.truth.json` ground truth beside them.
    Camouflage {
        /// The Camouflage set file.
        #[arg(long)]
        set: PathBuf,
        /// The folder to write into (created if missing).
        #[arg(long, value_parser = output_dir)]
        out: PathBuf,
        /// How many scenes.
        #[arg(long, default_value_t = 1)]
        n: usize,
        /// Random seed: the same seed renders the same scenes.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// How many cards lie on each board, the starting three included (3 to 40).
        #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u16).range(3..=40))]
        cards: u16,
        /// Render whole games instead of boards: a folder per game with a photo after each
        /// placement (some with a hand still over the table) and `series.json`, the game's
        /// history. `--cards` is then ignored: players play until nobody can.
        #[arg(long)]
        series: bool,
        /// Players in each game of `--series` (2 to 6).
        #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u8).range(2..=6))]
        players: u8,
        /// In `--series`, the chance that a play is a mistake: a card laid against the others
        /// but breaking a placement rule. In `--puzzles`, the chance a card is laid wrong.
        #[arg(long, default_value_t = 0.05, value_parser = parse_chance)]
        mistakes: f64,
        /// With `--series`, write each game as a video, `game.avi` (Motion-JPEG, 8 frames a
        /// second), instead of photos: a hand over the table lays every card, and each
        /// settled table is held for 0.75 s.
        #[arg(long, requires = "series")]
        video: bool,
        /// With `--series`, games of Not My Stack! (3 players or more): each player's
        /// location, started by a card of their own, set out around the table in front of
        /// them, and every card played on another player's location; `series.json`'s history
        /// names each play's location.
        #[arg(long, requires = "series")]
        not_my_stack: bool,
        /// Render solo puzzles instead: scene i lays the set's puzzle i (mod their number)
        /// on its side, and with chance `--mistakes` lays one card wrong (turned, swapped for
        /// another, moved one square or left out). `puzzles.json` says which scene solves its
        /// puzzle.
        #[arg(long, conflicts_with = "series")]
        puzzles: bool,
        /// With `--puzzles`, only this puzzle.
        #[arg(long, requires = "puzzles")]
        puzzle: Option<String>,
        /// The side of the cards face up (a side name of the set; its first side when omitted).
        #[arg(long)]
        side: Option<String>,
        /// Image size, WIDTHxHEIGHT.
        #[arg(long, default_value = "1920x1080", value_parser = parse_size)]
        size: (u32, u32),
        /// How degraded the photos are.
        #[arg(long, value_enum, default_value_t = DegradationArg::Realistic)]
        degradation: DegradationArg,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DegradationArg {
    Clean,
    Realistic,
    Harsh,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DistractorsArg {
    /// Only the player card and the stack.
    None,
    /// Mixed, as at a real game (the mission card usually there).
    Some,
    /// Every kind of distractor that fits.
    All,
}

fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("{s:?} is not WIDTHxHEIGHT, e.g. 1920x1080"))?;
    let n = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|&v| (16..=16384).contains(&v))
            .ok_or_else(|| format!("{v:?} is not a size in pixels (16 to 16384)"))
    };
    Ok((n(w)?, n(h)?))
}

/// Where the mission to verify against comes from: exactly one of these.
#[derive(Debug, Clone, Args)]
#[group(required = true, multiple = false)]
pub struct MissionSource {
    /// A mission of the set, by id (e.g. 3-07).
    #[arg(long)]
    pub mission: Option<String>,
    /// A photo of the mission card alone.
    #[arg(long, value_name = "CARD.jpg")]
    pub mission_photo: Option<PathBuf>,
    /// The mission card lies in the same photo as the stack: both are read under the same light.
    #[arg(long)]
    pub mission_in_photo: bool,
}

/// Options of every command that reads a photo.
#[derive(Debug, Clone, Args)]
pub struct PhotoOptions {
    /// Write the photo with the found grid, each cell's reading and the doubtful cells marked.
    #[arg(long, value_name = "OUT.png", value_parser = output_image)]
    pub annotate: Option<PathBuf>,
    /// A lens calibration (tablejudge/camera@1): corners and cells are found undistorted.
    #[arg(long, value_name = "FILE")]
    pub camera_calibration: Option<PathBuf>,
    /// A colour calibration (tablejudge/colour@1, from `calibrate colour`): the photo's
    /// colours are corrected with it before anything is read.
    #[arg(long, value_name = "FILE")]
    pub colour_calibration: Option<PathBuf>,
}

#[derive(Debug, Subcommand)]
pub enum SetCommand {
    /// Validate a set file of any kind (exit 0 valid, 2 invalid).
    ///
    /// A Layers+ set is also checked with the solver: every mission must be solvable with
    /// exactly its number of layers.
    Check {
        /// The set file (tablejudge/palette@1, layers-set@1 or camouflage-set@1).
        file: PathBuf,
        #[command(flatten)]
        output: Output,
    },
}

#[derive(Debug, Subcommand)]
pub enum LayersCommand {
    /// Every way to build a mission with exactly its number of layers, and the fewest
    /// layers that can build its pattern at all.
    Solve {
        /// The Layers+ set file.
        #[arg(long)]
        set: PathBuf,
        /// The mission id, e.g. 3-07.
        #[arg(long)]
        mission: String,
        #[command(flatten)]
        output: Output,
    },
    /// Read the visible grid of the stack on its player card in a photo.
    ///
    /// Exit 0 when every cell was read confidently; 3 when the stack could not be found or a
    /// cell is doubtful (the message says what to retake); 2 for bad input.
    Read {
        /// The photo (JPEG or PNG).
        photo: PathBuf,
        /// The Layers+ set file (yours from `layers enroll`, or a shipped one).
        #[arg(long)]
        set: PathBuf,
        #[command(flatten)]
        photo_options: PhotoOptions,
        #[command(flatten)]
        output: Output,
    },
    /// Judge whether the stack in a photo matches a mission: exit 0 match, 1 mismatch,
    /// 3 undecided (with what to retake), 2 bad input.
    Verify {
        /// The photo of the stack on its player card.
        photo: PathBuf,
        /// The Layers+ set file.
        #[arg(long)]
        set: PathBuf,
        #[command(flatten)]
        mission: MissionSource,
        #[command(flatten)]
        photo_options: PhotoOptions,
        #[command(flatten)]
        output: Output,
    },
    /// Build a set file from photos of your own copy (see docs/ENROLL.md for the protocol):
    /// `A-front.jpg`, `A-back.jpg`, … one layer alone on the player card per photo, and
    /// optionally mission cards named by id, e.g. `3-07.jpg`.
    ///
    /// Exit 0 when every photo agreed; 3 when cells disagree or were doubtful (the set is still
    /// written; the message names the photos to retake); 2 for bad input.
    Enroll {
        /// The photos.
        #[arg(required = true)]
        photos: Vec<PathBuf>,
        #[arg(long)]
        rows: usize,
        #[arg(long)]
        cols: usize,
        /// Where to write the set file.
        #[arg(long, value_name = "SET.json", value_parser = output_file)]
        out: PathBuf,
        /// The set's name.
        #[arg(long, default_value = "enrolled")]
        name: String,
        /// The player card's printed colour, if known (#rrggbb); otherwise the average light
        /// over the photos is taken as neutral.
        #[arg(long, value_name = "#RRGGBB")]
        card_srgb: Option<tablejudge_rules::Srgb>,
        #[command(flatten)]
        output: Output,
    },
}

#[derive(Debug, Subcommand)]
pub enum CamouflageCommand {
    /// Read the board in a photo: the lattice the cards lie on, each card centre (grouped by
    /// the look of its symbol: one group per deck) and each visible square's pattern.
    ///
    /// Exit 0 when every card square was read confidently; 3 when no card was found or a
    /// square is doubtful (the message says what to retake); 2 for bad input. A first version:
    /// it still misses cards on some boards (docs/ACCURACY.md); check its annotated image.
    Read {
        /// The photo (JPEG or PNG).
        photo: PathBuf,
        /// A Camouflage set whose pattern colours name the squares; without it only card
        /// centres and table are told apart.
        #[arg(long)]
        set: Option<PathBuf>,
        /// The side face up (a side name of the set); whichever explains the photo best when
        /// omitted.
        #[arg(long, requires = "set")]
        side: Option<String>,
        #[command(flatten)]
        photo_options: PhotoOptions,
        #[command(flatten)]
        output: Output,
    },
    /// Replay a game from a folder of photos, one taken after each card (in EXIF-time order,
    /// or file-name order when a photo has no time),
    /// or from a video of the table (.avi, .mp4, .mov, .mkv, .webm): each card found, who
    /// laid it (the deck it is from), what it covered, whether it was legal, and the final
    /// scores. From a video, the frames read are those where the table has settled.
    ///
    /// The first photo must show the starting board (three cards of one deck). Photos with a
    /// hand over the table are skipped; several cards laid between two photos are found
    /// together. Exit 0 when every card stands, 1 when a card was laid illegally, 3 when the
    /// photos do not show the game surely (the message says what to retake), 2 for bad input.
    Replay {
        /// The folder of photos, or a video file.
        source: PathBuf,
        /// The Camouflage set the cards are from.
        #[arg(long)]
        set: PathBuf,
        /// The side face up (a side name of the set); whichever the photos show when omitted.
        #[arg(long)]
        side: Option<String>,
        /// The game played.
        #[arg(long, value_enum)]
        mode: ModeArg,
        /// The Centers Wild variant: a centre matches any square above or below it.
        #[arg(long)]
        wild_centers: bool,
        /// Diversify and Cover Some Ground: the sand-timer level (only `expert` changes a
        /// replay from photos, which carry no times: no card counts after the first player
        /// goes out).
        #[arg(long, value_enum, default_value_t = TimerArg::Beginners)]
        timer: TimerArg,
        /// Write every photo annotated with what the replay made of it into this folder.
        #[arg(long, value_name = "DIR", value_parser = output_dir)]
        annotate: Option<PathBuf>,
        /// With a video: how long the table must be still, seconds, before a frame is read
        /// (a hand resting longer is seen and skipped as a hand).
        #[arg(long, default_value_t = 0.5, value_parser = parse_seconds)]
        settle: f64,
        /// The order of a folder's photos: by the time the camera wrote in each (EXIF) when
        /// every photo has one, else by file name (`auto`); or only `name`, or only `time`.
        #[arg(long, value_enum, default_value_t = OrderArg::Auto)]
        order: OrderArg,
        /// A lens calibration (tablejudge/camera@1).
        #[arg(long, value_name = "FILE")]
        camera_calibration: Option<PathBuf>,
        #[command(flatten)]
        output: Output,
    },
    /// Judge a solo puzzle from one photo of the laid cards: the puzzle's cards, covering
    /// exactly its outline, every overlapping square matching.
    ///
    /// The photo shows only the top of each square, so the verdict holds for every way of
    /// laying the cards the photo can show. Exit 0 solved, 1 not solved (the faults are
    /// named), 3 undecided (a card too covered to tell its turn, or squares not read surely:
    /// the message says what to lift or retake), 2 for bad input or an unknown puzzle id.
    Puzzle {
        /// The photo (JPEG or PNG).
        photo: PathBuf,
        /// The Camouflage set with the puzzle.
        #[arg(long)]
        set: PathBuf,
        /// The puzzle's id in the set (e.g. p-05).
        #[arg(long)]
        puzzle: String,
        #[command(flatten)]
        photo_options: PhotoOptions,
        #[command(flatten)]
        output: Output,
    },
}

/// How the photos of a folder are ordered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum OrderArg {
    Auto,
    Name,
    Time,
}

/// A Camouflage game mode.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    Speed,
    Diversify,
    Cover,
    NotMyStack,
}

impl From<ModeArg> for tablejudge_rules::camouflage::Mode {
    fn from(m: ModeArg) -> Self {
        use tablejudge_rules::camouflage::Mode;
        match m {
            ModeArg::Speed => Mode::SpeedRound,
            ModeArg::Diversify => Mode::Diversify,
            ModeArg::Cover => Mode::CoverSomeGround,
            ModeArg::NotMyStack => Mode::NotMyStack,
        }
    }
}

/// The sand-timer level of Diversify and Cover Some Ground.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TimerArg {
    Beginners,
    Advanced,
    Expert,
}

impl From<TimerArg> for tablejudge_rules::camouflage::TimerLevel {
    fn from(t: TimerArg) -> Self {
        use tablejudge_rules::camouflage::TimerLevel;
        match t {
            TimerArg::Beginners => TimerLevel::Beginners,
            TimerArg::Advanced => TimerLevel::Advanced,
            TimerArg::Expert => TimerLevel::Expert,
        }
    }
}

#[derive(Debug, Clone, Copy, Args)]
pub struct Output {
    /// Print one JSON document instead of text.
    #[arg(long)]
    pub json: bool,
}

/// A duration in seconds, 0 to 60.
fn parse_seconds(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(t) if (0.0..=60.0).contains(&t) => Ok(t),
        _ => Err(format!("{s:?} is not a number of seconds between 0 and 60")),
    }
}

/// A file to write: checked when the command line is read, so that a command fails before
/// its work, not after it (the folder it goes in must exist; it must not be a folder).
fn output_file(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    if s.is_empty() {
        return Err("give a file name".into());
    }
    if path.is_dir() {
        return Err(format!("{s} is a folder: give a file name in it"));
    }
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => std::path::Path::new("."),
    };
    if !dir.is_dir() {
        return Err(format!(
            "the folder {} does not exist: create it first",
            dir.display()
        ));
    }
    Ok(path)
}

/// [`output_file`] for an image: a .png or .jpg.
fn output_image(s: &str) -> Result<PathBuf, String> {
    let path = output_file(s)?;
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase);
    match ext.as_deref() {
        Some("png" | "jpg" | "jpeg") => Ok(path),
        _ => Err(format!("{s}: give a name ending in .png or .jpg")),
    }
}

/// A folder to write into, created if missing: it must not be a file, and the nearest part
/// of it that exists must be a folder.
fn output_dir(s: &str) -> Result<PathBuf, String> {
    let path = PathBuf::from(s);
    // A relative path with no part existing yet goes in the current folder.
    let existing = path
        .ancestors()
        .find(|a| a.exists())
        .unwrap_or(std::path::Path::new("."));
    if !existing.is_dir() {
        return Err(format!(
            "{s}: cannot write there: {} is a file, not a folder",
            existing.display()
        ));
    }
    Ok(path)
}

/// A probability, 0 to 1.
fn parse_chance(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(p) if (0.0..=1.0).contains(&p) => Ok(p),
        _ => Err(format!("{s:?} is not a chance between 0 and 1")),
    }
}
