//! The platform manifests under manifests/: every XML file parses, each one
//! declares what its platform needs (and, for HoloLens, exactly the
//! capabilities of the OpenXR extensions the app asks for, read from the
//! list the code enables them from, and of the Windows APIs it calls, read
//! from the windows crate features Cargo.toml enables), and the Linux files pass their real
//! validators (`desktop-file-validate`, `appstreamcli validate --no-net`).
//!
//! The validators come from scripts/install-deps.sh test; where one is
//! missing its test prints why it is skipped, unless env CI is set, when it
//! fails instead.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use holoterrain::xr::sys::extensions::OPTIONAL_EXTENSIONS;

/// The Android manifest's attribute namespace.
const ANDROID_NS: &str = "http://schemas.android.com/apk/res/android";
/// The appx manifest's default (foundation) namespace.
const APPX_NS: &str = "http://schemas.microsoft.com/appx/manifest/foundation/windows10";
/// The appx namespace of the spatialPerception capability.
const UAP2_NS: &str = "http://schemas.microsoft.com/appx/manifest/uap/windows10/2";
/// The application id shared by the Linux desktop entry, metainfo and icon.
const LINUX_APP_ID: &str = "io.github.holoterrain.Holoterrain";

/// The manifests folder.
fn manifests() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("manifests")
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Skips (printing why) or, when env CI is set, panics.
fn skip(reason: &str) {
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set, so this test must run, but: {reason}"
    );
    eprintln!("SKIPPED: {reason}");
}

/// Every file under `dir`, recursively.
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir)
        .expect("read manifests dir")
        .flatten()
    {
        let path = entry.path();
        if path.is_dir() {
            files.extend(files_under(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// The appx capability (element name, `Name`) each OpenXR extension needs
/// on HoloLens 2: anchors, their persistence and the room's surfaces need
/// spatial perception, eye gaze needs gaze input, QR codes the webcam.
const CAPABILITY_OF_EXTENSION: [(&str, (&str, &str)); 5] = [
    (
        "XR_MSFT_spatial_anchor",
        ("Capability", "spatialPerception"),
    ),
    (
        "XR_MSFT_spatial_anchor_persistence",
        ("Capability", "spatialPerception"),
    ),
    (
        "XR_MSFT_scene_understanding",
        ("Capability", "spatialPerception"),
    ),
    (
        "XR_EXT_eye_gaze_interaction",
        ("DeviceCapability", "gazeInput"),
    ),
    ("XR_MSFT_scene_marker", ("DeviceCapability", "webcam")),
];

/// The appx capability each Windows API the app calls needs, by the
/// windows crate feature that gives the app that API: Windows' speech
/// recognition listens to the microphone.
const CAPABILITY_OF_WINDOWS_FEATURE: [(&str, (&str, &str)); 1] = [(
    "Media_SpeechRecognition",
    ("DeviceCapability", "microphone"),
)];

/// The appx capability each part of the app that uses the network needs,
/// by a file of it and what in it calls the network: a shared session
/// listens and connects on the local network.
const CAPABILITY_OF_NETWORK_USE: [(&str, &str, (&str, &str)); 1] = [(
    "src/net/session/host.rs",
    "TcpListener::bind",
    ("Capability", "privateNetworkClientServer"),
)];

/// The capabilities the network uses of the app's code need.
fn network_capabilities() -> Vec<(String, &'static str)> {
    CAPABILITY_OF_NETWORK_USE
        .iter()
        .filter(|(file, call, _)| {
            read(&Path::new(env!("CARGO_MANIFEST_DIR")).join(file)).contains(call)
        })
        .map(|(_, _, (element, name))| ((*element).to_owned(), *name))
        .collect()
}

/// The features the app's Cargo.toml enables of the `windows` crate (the
/// Windows APIs the Windows builds, the HoloLens package's among them, can call).
fn windows_features() -> BTreeSet<String> {
    let text = read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"));
    let cargo: toml::Table = text.parse().expect("Cargo.toml parses");
    cargo["target"]["cfg(windows)"]["dependencies"]["windows"]["features"]
        .as_array()
        .expect("the windows crate's features")
        .iter()
        .map(|feature| feature.as_str().expect("a feature name").to_owned())
        .collect()
}

/// Whether the app asks runtimes for `extension` (whenever offered).
fn app_requests(extension: &str) -> bool {
    OPTIONAL_EXTENSIONS
        .iter()
        .any(|requested| requested.name == extension)
}

/// The element children of `node` named `name` (in any namespace).
fn children<'a, 'input>(
    node: roxmltree::Node<'a, 'input>,
    name: &'a str,
) -> impl Iterator<Item = roxmltree::Node<'a, 'input>> + 'a {
    node.children()
        .filter(move |child| child.is_element() && child.tag_name().name() == name)
}

/// The one element child of `node` named `name`.
fn child<'a, 'input>(
    node: roxmltree::Node<'a, 'input>,
    name: &'a str,
) -> roxmltree::Node<'a, 'input> {
    children(node, name)
        .next()
        .unwrap_or_else(|| panic!("<{}> has no <{name}>", node.tag_name().name()))
}

#[test]
fn every_xml_manifest_parses() {
    let xml_files: Vec<PathBuf> = files_under(&manifests())
        .into_iter()
        .filter(|path| {
            let name = path.to_string_lossy();
            name.ends_with(".xml") || name.ends_with(".appxmanifest")
        })
        .collect();
    assert!(
        xml_files.len() >= 3,
        "expected the Android, HoloLens and AppStream manifests, found {xml_files:?}"
    );
    for file in xml_files {
        let text = read(&file);
        if let Err(error) = roxmltree::Document::parse(&text) {
            panic!("{} is not well-formed XML: {error}", file.display());
        }
    }
}

#[test]
fn hololens_manifest_targets_holographic_arm64_with_only_the_capabilities_the_code_uses() {
    let text = read(&manifests().join("hololens/Package.appxmanifest"));
    let doc = roxmltree::Document::parse(&text).expect("Package.appxmanifest parses");
    let package = doc.root_element();
    assert_eq!(package.tag_name().name(), "Package");
    assert_eq!(package.tag_name().namespace(), Some(APPX_NS));
    assert_eq!(
        child(package, "Identity").attribute("ProcessorArchitecture"),
        Some("arm64")
    );
    let families: Vec<&str> = children(child(package, "Dependencies"), "TargetDeviceFamily")
        .filter_map(|family| family.attribute("Name"))
        .collect();
    assert_eq!(families, ["Windows.Holographic"]);

    let declared: BTreeSet<(String, &str)> = child(package, "Capabilities")
        .children()
        .filter(|node| node.is_element())
        .map(|node| {
            (
                node.tag_name().name().to_owned(),
                node.attribute("Name").expect("a capability has a Name"),
            )
        })
        .collect();
    let features = windows_features();
    let used: BTreeSet<(String, &str)> = CAPABILITY_OF_EXTENSION
        .iter()
        .filter(|(extension, _)| app_requests(extension))
        .chain(
            CAPABILITY_OF_WINDOWS_FEATURE
                .iter()
                .filter(|(feature, _)| features.contains(*feature)),
        )
        .map(|(_, (element, name))| ((*element).to_owned(), *name))
        .chain(network_capabilities())
        .collect();
    assert_eq!(
        declared, used,
        "declared capabilities differ from those the requested extensions, the Windows APIs called and the network use need"
    );
    // The speech listener is built, so the package asks for the microphone.
    assert!(features.contains("Media_SpeechRecognition"), "{features:?}");
    let microphone = child(package, "Capabilities")
        .children()
        .find(|node| node.attribute("Name") == Some("microphone"))
        .expect("the microphone capability");
    assert_eq!(microphone.tag_name().name(), "DeviceCapability");
    assert_eq!(microphone.tag_name().namespace(), Some(APPX_NS));
    // The schema wants every Capability before any DeviceCapability.
    let kinds: Vec<&str> = child(package, "Capabilities")
        .children()
        .filter(|node| node.is_element())
        .map(|node| node.tag_name().name())
        .collect();
    let first_device = kinds.iter().position(|kind| *kind == "DeviceCapability");
    assert!(
        first_device.is_none_or(|first| kinds[first..]
            .iter()
            .all(|kind| *kind == "DeviceCapability")),
        "Capability after DeviceCapability: {kinds:?}"
    );
    let spatial = child(package, "Capabilities")
        .children()
        .find(|node| node.attribute("Name") == Some("spatialPerception"));
    if let Some(spatial) = spatial {
        assert_eq!(spatial.tag_name().namespace(), Some(UAP2_NS));
    }

    // The app container note and the code that honours it.
    assert!(text.contains("XR_EXT_win32_appcontainer_compatible"));
    assert!(app_requests("XR_EXT_win32_appcontainer_compatible"));
}

#[test]
fn android_manifest_is_an_openxr_native_activity() {
    let text = read(&manifests().join("android/AndroidManifest.xml"));
    let doc = roxmltree::Document::parse(&text).expect("AndroidManifest.xml parses");
    let manifest = doc.root_element();
    assert_eq!(manifest.tag_name().name(), "manifest");

    let features: Vec<(Option<&str>, Option<&str>)> = children(manifest, "uses-feature")
        .map(|feature| (android(feature, "name"), android(feature, "required")))
        .collect();
    assert!(
        features.contains(&(Some("android.hardware.vr.headtracking"), Some("true"))),
        "no required head tracking feature: {features:?}"
    );
    let permissions: BTreeSet<&str> = children(manifest, "uses-permission")
        .filter_map(|permission| android(permission, "name"))
        .collect();
    for permission in [
        "org.khronos.openxr.permission.OPENXR",
        "org.khronos.openxr.permission.OPENXR_SYSTEM",
    ] {
        assert!(permissions.contains(permission), "missing {permission}");
    }

    let queries = child(manifest, "queries");
    let authorities: BTreeSet<&str> = children(queries, "provider")
        .filter_map(|provider| android(provider, "authorities"))
        .flat_map(|list| list.split(';'))
        .collect();
    assert!(authorities.contains("org.khronos.openxr.runtime_broker"));
    assert!(authorities.contains("org.khronos.openxr.system_runtime_broker"));
    let query_actions: BTreeSet<&str> = children(queries, "intent")
        .flat_map(|intent| children(intent, "action"))
        .filter_map(|action| android(action, "name"))
        .collect();
    assert!(query_actions.contains("org.khronos.openxr.OpenXRRuntimeService"));

    let application = child(manifest, "application");
    assert_eq!(android(application, "hasCode"), Some("false"));
    let activity = child(application, "activity");
    assert_eq!(
        android(activity, "name"),
        Some("android.app.NativeActivity")
    );
    let lib_name = children(activity, "meta-data")
        .find(|meta| android(*meta, "name") == Some("android.app.lib_name"))
        .and_then(|meta| android(meta, "value"));
    assert_eq!(lib_name, Some(env!("CARGO_PKG_NAME")));
    let categories: BTreeSet<&str> = children(activity, "intent-filter")
        .flat_map(|filter| children(filter, "category"))
        .filter_map(|category| android(category, "name"))
        .collect();
    for category in [
        "android.intent.category.LAUNCHER",
        "org.khronos.openxr.intent.category.IMMERSIVE_HMD",
        "com.oculus.intent.category.VR",
    ] {
        assert!(categories.contains(category), "missing category {category}");
    }
}

/// An `android:` attribute of an Android manifest element.
fn android<'a>(node: roxmltree::Node<'a, '_>, name: &str) -> Option<&'a str> {
    node.attribute((ANDROID_NS, name))
}

/// Runs a validator on a file: None when the tool is not installed.
fn validate(tool: &str, args: &[&str], file: &Path) -> Option<std::process::Output> {
    match Command::new(tool).args(args).arg(file).output() {
        Ok(output) => Some(output),
        Err(error) => {
            skip(&format!(
                "{tool} cannot run ({error}); scripts/install-deps.sh test installs it"
            ));
            None
        }
    }
}

#[test]
fn desktop_entry_passes_desktop_file_validate_and_launches_the_xr_app() {
    let file = manifests().join(format!("linux/{LINUX_APP_ID}.desktop"));
    let Some(output) = validate("desktop-file-validate", &[], &file) else {
        return;
    };
    let messages = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        output.status.success() && messages.trim().is_empty(),
        "desktop-file-validate: {messages}"
    );
    let entry = read(&file);
    let key = |name: &str| {
        entry
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name}=")))
            .unwrap_or_else(|| panic!("no {name}= in the desktop entry"))
            .to_owned()
    };
    assert!(
        key("Exec").contains("holoterrain xr"),
        "Exec: {}",
        key("Exec")
    );
    assert_eq!(key("Terminal"), "true");
    assert_eq!(key("TryExec"), "holoterrain");
    assert_eq!(key("Icon"), LINUX_APP_ID);
    assert!(
        manifests()
            .join(format!("linux/{LINUX_APP_ID}.png"))
            .is_file(),
        "the icon the entry names is missing"
    );
}

#[test]
fn metainfo_passes_appstreamcli_validate_and_names_the_desktop_entry() {
    let file = manifests().join(format!("linux/{LINUX_APP_ID}.metainfo.xml"));
    let Some(output) = validate("appstreamcli", &["validate", "--no-net"], &file) else {
        return;
    };
    assert!(
        output.status.success(),
        "appstreamcli validate: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let text = read(&file);
    let doc = roxmltree::Document::parse(&text).expect("metainfo parses");
    let component = doc.root_element();
    assert_eq!(component.attribute("type"), Some("desktop-application"));
    assert_eq!(child(component, "id").text(), Some(LINUX_APP_ID));
    let desktop_id = format!("{LINUX_APP_ID}.desktop");
    assert_eq!(
        child(component, "launchable").text(),
        Some(desktop_id.as_str())
    );
    assert_eq!(
        child(child(component, "provides"), "binary").text(),
        Some("holoterrain")
    );
}
