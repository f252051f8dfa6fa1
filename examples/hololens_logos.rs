//! Writes the HoloLens 2 package's logos, made from the app's icon
//! (manifests/linux/io.github.holoterrain.Holoterrain.png): each one the
//! size its manifest entry requires at scale 100, the icon scaled to fit and
//! centred on a transparent canvas. Run by scripts/build-hololens.sh:
//!
//!     cargo run --example hololens_logos -- OUT_DIR
//!
//! An example, like package_assets, so that neither the app nor its build
//! carries the generator.
use std::fs::File;
use std::io::BufWriter;
use std::path::Path;
use std::process::ExitCode;

/// The icon the logos are made from.
const ICON: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/manifests/linux/io.github.holoterrain.Holoterrain.png"
);

/// Each logo the manifest names (manifests/hololens/Package.appxmanifest):
/// file name, canvas width and height, and the icon's side on it.
const LOGOS: [(&str, u32, u32, u32); 4] = [
    // Properties/Logo: the store logo, 50×50.
    ("StoreLogo.png", 50, 50, 50),
    // The start menu's medium tile, 150×150; the icon a little inset.
    ("Square150x150Logo.png", 150, 150, 120),
    // App list and task views, 44×44.
    ("Square44x44Logo.png", 44, 44, 44),
    // The splash screen, 620×300, with the icon in its middle.
    ("SplashScreen.png", 620, 300, 200),
];

fn main() -> ExitCode {
    let mut args = std::env::args_os().skip(1);
    let (Some(out_dir), None) = (args.next(), args.next()) else {
        eprintln!(
            "error: give exactly one output directory: cargo run --example hololens_logos -- OUT_DIR"
        );
        return ExitCode::from(2);
    };
    match write_logos(Path::new(&out_dir)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// An RGBA image, 8 bits a channel, rows top to bottom.
struct Rgba {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

fn write_logos(out_dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(out_dir)
        .map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    let icon = read_icon()?;
    for (name, width, height, side) in LOGOS {
        let logo = centred(&scaled(&icon, side), width, height);
        let path = out_dir.join(name);
        write_png(&path, &logo).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    }
    Ok(())
}

fn read_icon() -> Result<Rgba, String> {
    let file = File::open(ICON).map_err(|e| format!("cannot open {ICON}: {e}"))?;
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .map_err(|e| format!("{ICON}: {e}"))?;
    let mut pixels = vec![0; reader.output_buffer_size().unwrap_or(0)];
    let info = reader
        .next_frame(&mut pixels)
        .map_err(|e| format!("{ICON}: {e}"))?;
    if info.color_type != png::ColorType::Rgba || info.bit_depth != png::BitDepth::Eight {
        return Err(format!("{ICON}: expected 8-bit RGBA"));
    }
    pixels.truncate(info.buffer_size());
    Ok(Rgba {
        width: info.width,
        height: info.height,
        pixels,
    })
}

/// `image` resampled bilinearly to `side`×`side`, in premultiplied alpha so
/// transparent pixels do not darken the edges.
fn scaled(image: &Rgba, side: u32) -> Rgba {
    let premultiplied: Vec<[f32; 4]> = image
        .pixels
        .chunks_exact(4)
        .map(|p| {
            let alpha = f32::from(p[3]) / 255.0;
            [
                f32::from(p[0]) * alpha,
                f32::from(p[1]) * alpha,
                f32::from(p[2]) * alpha,
                alpha,
            ]
        })
        .collect();
    let at = |x: u32, y: u32| premultiplied[(y * image.width + x) as usize];
    let mut pixels = Vec::with_capacity((side * side * 4) as usize);
    for y in 0..side {
        let source_y = ((y as f32 + 0.5) * image.height as f32 / side as f32 - 0.5)
            .clamp(0.0, (image.height - 1) as f32);
        for x in 0..side {
            let source_x = ((x as f32 + 0.5) * image.width as f32 / side as f32 - 0.5)
                .clamp(0.0, (image.width - 1) as f32);
            let (x0, y0) = (source_x as u32, source_y as u32);
            let (x1, y1) = (
                (x0 + 1).min(image.width - 1),
                (y0 + 1).min(image.height - 1),
            );
            let (fx, fy) = (source_x - x0 as f32, source_y - y0 as f32);
            let mut sample = [0.0f32; 4];
            for (channel, value) in sample.iter_mut().enumerate() {
                let top = at(x0, y0)[channel] * (1.0 - fx) + at(x1, y0)[channel] * fx;
                let bottom = at(x0, y1)[channel] * (1.0 - fx) + at(x1, y1)[channel] * fx;
                *value = top * (1.0 - fy) + bottom * fy;
            }
            let alpha = sample[3];
            for colour in &sample[..3] {
                let straight = if alpha > 0.0 { colour / alpha } else { 0.0 };
                pixels.push(straight.round().clamp(0.0, 255.0) as u8);
            }
            pixels.push((alpha * 255.0).round() as u8);
        }
    }
    Rgba {
        width: side,
        height: side,
        pixels,
    }
}

/// `image` in the middle of a transparent `width`×`height` canvas.
fn centred(image: &Rgba, width: u32, height: u32) -> Rgba {
    let mut pixels = vec![0u8; (width * height * 4) as usize];
    let (left, top) = ((width - image.width) / 2, (height - image.height) / 2);
    for row in 0..image.height {
        let source = (row * image.width * 4) as usize;
        let target = (((top + row) * width + left) * 4) as usize;
        let length = (image.width * 4) as usize;
        pixels[target..target + length].copy_from_slice(&image.pixels[source..source + length]);
    }
    Rgba {
        width,
        height,
        pixels,
    }
}

fn write_png(path: &Path, image: &Rgba) -> Result<(), png::EncodingError> {
    let file = File::create(path)?;
    let mut encoder = png::Encoder::new(BufWriter::new(file), image.width, image.height);
    encoder.set_color(png::ColorType::Rgba);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header()?;
    writer.write_image_data(&image.pixels)?;
    writer.finish()
}
