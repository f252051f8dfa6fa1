//! "Save terrain": a new folder `save-NNN/` in the state folder holding the terrain its commands made (`terrain.png`, 16-bit, `terrain.glb`, and `terrain.3mf` to print), its `recipe.toml`, the `commands.jsonl` that grows it again, and `picture.png` of the moment (the frame the platform drew, or where it cannot read one back, the land from above).
//!
//! The heights are the command log replayed offline, exactly what
//! `holoterrain generate --replay commands.jsonl` writes, so the saved
//! terrain and a later replay of the saved log agree byte for byte (an
//! edit still easing in on screen counts whole, as its command applied).
//! `terrain.3mf` is the diorama as one solid at the default print size
//! (100 mm across, true heights, 5 mm base), as `generate --replay
//! commands.jsonl --format 3mf` writes it; a slicer scales it.
use std::io;
use std::path::{Path, PathBuf};

use thiserror::Error;

use crate::app::controls::landscape_label;
use crate::app::frame::{SAVE_MOSAIC, SaveSummary};
use crate::app::run::log::{COMMAND_LOG_FILE, CommandLog};
use crate::app::world::command::Command;
use crate::app::world::placement::{self, HOLOGRAM_SIZE_M};
use crate::atomic_file;
use crate::render::glb;
use crate::render::print;
use crate::render::relief::{RELIEF_SIZE, relief};
use crate::render::solid::{PrintSize, solid};
use crate::terrain::export::{self, Format};
use crate::terrain::recipe::BuiltInName;

/// Most saves a state folder takes (`save-001` to `save-999`).
pub const MAX_SAVES: u32 = 999;

/// A picture of the moment: RGB rows, `width` × `height`.
#[derive(Debug, Clone, PartialEq)]
pub struct Picture {
    /// Pixels across.
    pub width: u32,
    /// Pixels down.
    pub height: u32,
    /// Row-major RGB bytes.
    pub rgb: Vec<u8>,
}

/// Why a save failed; the app says it in one line and goes on.
#[derive(Debug, Error)]
pub enum SaveError {
    #[error("cannot save the terrain into {}: {source}", path.display())]
    Write { path: PathBuf, source: io::Error },
    #[error("cannot save the terrain: {0}")]
    Terrain(String),
    #[error(
        "cannot save the terrain: {} already holds {MAX_SAVES} saves; move some away",
        folder.display()
    )]
    Full { folder: PathBuf },
}

/// Writes `save-NNN/` (the first number not taken) into `state_dir` from
/// `log`, with `picture` when there is one; the folder it wrote. A failure
/// leaves no folder behind (its files' temp files are gone with them:
/// `atomic_file` drops them).
pub fn save_terrain(
    state_dir: &Path,
    log: &CommandLog,
    picture: Option<Picture>,
) -> Result<PathBuf, SaveError> {
    let world = log
        .replay_offline()
        .map_err(|error| SaveError::Terrain(error.to_string()))?;
    let heights = world.heightmap();
    let png16 = export::encode(heights, Format::Png16, None)
        .map_err(|error| SaveError::Terrain(error.to_string()))?;
    // The underside where the app draws it (terrain units below height zero).
    let underside =
        (placement::base_bottom_m(heights.min_max().0) - placement::BASE_DEPTH_M) / HOLOGRAM_SIZE_M;
    let glb = glb::land(
        heights,
        glb::Paint::of(world.recipe()),
        HOLOGRAM_SIZE_M,
        underside,
    )
    .map_err(|error| SaveError::Terrain(error.to_string()))?;
    let three_mf = solid(heights, PrintSize::default())
        .map_err(|error| SaveError::Terrain(error.to_string()))
        .and_then(|solid| {
            print::three_mf(&solid).map_err(|error| SaveError::Terrain(error.to_string()))
        })?;
    let recipe = world.recipe().to_toml();
    let commands = log.to_jsonl();
    // Where the platform cannot read its frame back, the land from above.
    let picture = picture.unwrap_or_else(|| {
        let (width, height) = RELIEF_SIZE;
        Picture {
            width,
            height,
            rgb: relief(heights, glb::Paint::of(world.recipe())),
        }
    });
    let picture_png = encode_picture(picture)?;

    let write_error = |path: &Path, source| SaveError::Write {
        path: path.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(state_dir).map_err(|source| write_error(state_dir, source))?;
    let dir = claim_folder(state_dir)?;
    let paths = [
        "terrain.png",
        "terrain.glb",
        "terrain.3mf",
        "recipe.toml",
        COMMAND_LOG_FILE,
        "picture.png",
    ]
    .map(|name| dir.join(name));
    let files: Vec<(&Path, &[u8])> = vec![
        (&paths[0], &png16),
        (&paths[1], &glb),
        (&paths[2], &three_mf),
        (&paths[3], recipe.as_bytes()),
        (&paths[4], commands.as_bytes()),
        (&paths[5], &picture_png),
    ];
    if let Err((path, source)) = atomic_file::write_all(&files) {
        // File by file, then the folder: std's remove_dir_all on Windows
        // calls ntdll's NtOpenFile, which a HoloLens 2 (UWP) app may not.
        for (written, _) in &files {
            let _ = std::fs::remove_file(written);
        }
        let _ = std::fs::remove_dir(&dir);
        return Err(write_error(path, source));
    }
    Ok(dir)
}

/// The command log of the save in `dir`, to open it: one line saying
/// what is wrong when `dir` is missing, is not a save, or holds a log cut
/// short or corrupt.
pub fn open_save(dir: &Path) -> Result<CommandLog, String> {
    let cannot = |why: String| format!("cannot open the save {}: {why}", dir.display());
    if !dir.is_dir() {
        return Err(cannot("there is no such folder".into()));
    }
    let file = dir.join(COMMAND_LOG_FILE);
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(error) if error.kind() == io::ErrorKind::NotFound => {
            return Err(cannot(format!(
                "it is not a holoterrain save (it has no {COMMAND_LOG_FILE}); open a save-NNN folder"
            )));
        }
        Err(error) => return Err(cannot(format!("{COMMAND_LOG_FILE}: {error}"))),
    };
    CommandLog::parse(&text).map_err(|error| cannot(format!("{COMMAND_LOG_FILE} {error}")))
}

/// The saves in `state_dir`, newest first (by number).
pub fn saves_in(state_dir: &Path) -> Vec<PathBuf> {
    let mut saves: Vec<(u32, PathBuf)> = std::fs::read_dir(state_dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let number = name.strip_prefix("save-")?.parse::<u32>().ok()?;
            entry.path().is_dir().then(|| (number, entry.path()))
        })
        .collect();
    saves.sort_by_key(|save| std::cmp::Reverse(save.0));
    saves.into_iter().map(|(_, path)| path).collect()
}

/// The newest `rows` saves in `state_dir` as the history page lists them:
/// their folders, and for each its name, the landscape it grew last and
/// its picture shrunk to [`SAVE_MOSAIC`] (grey where it has none). A save
/// that cannot be read is listed all the same: opening it says why not.
pub fn summaries(state_dir: &Path, rows: usize) -> (Vec<PathBuf>, Vec<SaveSummary>) {
    let folders: Vec<PathBuf> = saves_in(state_dir).into_iter().take(rows).collect();
    let summaries = folders
        .iter()
        .map(|folder| SaveSummary {
            name: folder
                .file_name()
                .map_or_else(String::new, |name| name.to_string_lossy().into_owned()),
            landscape: open_save(folder)
                .map(|log| landscape_of(&log))
                .unwrap_or_else(|_| "cannot be read".into()),
            mosaic: mosaic(&folder.join("picture.png")),
        })
        .collect();
    (folders, summaries)
}

/// The landscape `log` grew last: its last landscape command's, else its
/// start's, by its label.
fn landscape_of(log: &CommandLog) -> String {
    let last = log
        .entries
        .iter()
        .rev()
        .find_map(|entry| match entry.command {
            Command::Landscape { name, .. } => Some(name),
            _ => None,
        });
    match last.or_else(|| BuiltInName::new(&log.start.recipe)) {
        Some(name) => landscape_label(name).into(),
        None => log.start.recipe.clone(),
    }
}

/// The picture in `png` shrunk to [`SAVE_MOSAIC`] cells, each the mean of
/// its pixels; grey where there is no picture to read.
fn mosaic(png: &Path) -> Vec<[u8; 3]> {
    let (columns, rows) = SAVE_MOSAIC;
    let grey = vec![[110, 110, 110]; columns * rows];
    let Ok(file) = std::fs::File::open(png) else {
        return grey;
    };
    let decoder = png::Decoder::new(std::io::BufReader::new(file));
    let Ok(mut reader) = decoder.read_info() else {
        return grey;
    };
    let Some(size) = reader.output_buffer_size() else {
        return grey;
    };
    let mut pixels = vec![0; size];
    let Ok(info) = reader.next_frame(&mut pixels) else {
        return grey;
    };
    let channels = info.color_type.samples();
    if info.bit_depth != png::BitDepth::Eight || channels < 3 || info.width == 0 || info.height == 0
    {
        return grey;
    }
    let (width, height) = (info.width as usize, info.height as usize);
    let mut sums = vec![[0u64; 4]; columns * rows];
    for y in 0..height {
        for x in 0..width {
            let at = (y * width + x) * channels;
            let cell = (y * rows / height) * columns + x * columns / width;
            for channel in 0..3 {
                sums[cell][channel] += u64::from(pixels[at + channel]);
            }
            sums[cell][3] += 1;
        }
    }
    sums.iter()
        .map(|sum| [0, 1, 2].map(|channel| (sum[channel] / sum[3].max(1)) as u8))
        .collect()
}

/// Makes the first `save-NNN` folder not yet in `state_dir`; creating it is
/// what claims the number, so two saves never share one.
fn claim_folder(state_dir: &Path) -> Result<PathBuf, SaveError> {
    for number in 1..=MAX_SAVES {
        let dir = state_dir.join(format!("save-{number:03}"));
        match std::fs::create_dir(&dir) {
            Ok(()) => return Ok(dir),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(source) => return Err(SaveError::Write { path: dir, source }),
        }
    }
    Err(SaveError::Full {
        folder: state_dir.to_path_buf(),
    })
}

/// `picture` as an 8-bit RGB PNG.
fn encode_picture(picture: Picture) -> Result<Vec<u8>, SaveError> {
    let mut bytes = Vec::new();
    let mut encoder = png::Encoder::new(&mut bytes, picture.width, picture.height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    encoder
        .write_header()
        .and_then(|mut writer| writer.write_image_data(&picture.rgb))
        .map_err(|error| SaveError::Terrain(format!("the picture: {error}")))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::run::log::{LogEnd, LogStart};

    fn log() -> CommandLog {
        CommandLog::new(LogStart::demo(7, 33, 33))
    }

    #[test]
    fn saves_take_the_next_free_number_and_hold_every_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("save-001")).unwrap();
        let picture = Picture {
            width: 4,
            height: 2,
            rgb: vec![128u8; 4 * 2 * 3],
        };
        let saved = save_terrain(dir.path(), &log(), Some(picture)).unwrap();
        assert_eq!(saved, dir.path().join("save-002"));
        for name in [
            "terrain.png",
            "terrain.glb",
            "terrain.3mf",
            "recipe.toml",
            "commands.jsonl",
            "picture.png",
        ] {
            let size = std::fs::metadata(saved.join(name)).unwrap().len();
            assert!(size > 0, "{name}");
        }
        // The print is the replayed heights' solid at the default size.
        let heights = log().replay_offline().unwrap().heightmap().clone();
        let want = print::three_mf(&solid(&heights, PrintSize::default()).unwrap()).unwrap();
        assert_eq!(std::fs::read(saved.join("terrain.3mf")).unwrap(), want);
        let again = save_terrain(dir.path(), &log(), None).unwrap();
        assert_eq!(again, dir.path().join("save-003"));
        // No frame to read back: the land from above.
        let decoder = png::Decoder::new(std::io::BufReader::new(
            std::fs::File::open(again.join("picture.png")).unwrap(),
        ));
        let info = decoder.read_info().unwrap().info().clone();
        assert_eq!((info.width, info.height), RELIEF_SIZE);
    }

    #[test]
    fn a_save_opens_to_its_log_and_anything_else_is_one_line() {
        let dir = tempfile::tempdir().unwrap();
        // A run's log is saved ended at the frame it was saved in.
        let ended = CommandLog {
            end: Some(LogEnd {
                frame: 9,
                iteration: 9,
            }),
            ..log()
        };
        let saved = save_terrain(dir.path(), &ended, None).unwrap();
        assert_eq!(open_save(&saved).unwrap(), ended);
        assert_eq!(saves_in(dir.path()), vec![saved.clone()]);
        let foreign = dir.path().join("holiday");
        std::fs::create_dir(&foreign).unwrap();
        let partial = dir.path().join("save-002");
        std::fs::create_dir(&partial).unwrap();
        let text = ended.to_jsonl();
        std::fs::write(partial.join(COMMAND_LOG_FILE), &text[..text.len() / 2]).unwrap();
        for (folder, says) in [
            (dir.path().join("save-404"), "there is no such folder"),
            (foreign, "it is not a holoterrain save"),
            (partial.clone(), "commands.jsonl line 1: not the start line"),
        ] {
            let line = open_save(&folder).unwrap_err();
            assert!(line.starts_with("cannot open the save "), "{line}");
            assert!(line.contains(says), "{line}");
            assert!(!line.contains('\n'), "{line}");
        }
        assert_eq!(saves_in(dir.path()), vec![partial, saved], "newest first");
    }

    #[test]
    fn a_folder_that_cannot_be_written_is_one_error_and_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("not-a-folder");
        std::fs::write(&file, b"x").unwrap();
        let error = save_terrain(&file, &log(), None).unwrap_err();
        let line = error.to_string();
        assert!(line.starts_with("cannot save the terrain into"), "{line}");
        assert!(!line.contains('\n'));
        assert_eq!(std::fs::read(&file).unwrap(), b"x");
    }
}
