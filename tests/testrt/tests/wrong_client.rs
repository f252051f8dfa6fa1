//! A deliberately wrong OpenXR client: through the system's OpenXR loader
//! and the Linux build of the test runtime (scripts/build-test-runtime.sh),
//! it breaks one rule of each class the runtime checks — structure types,
//! handles and their parents, call order, composition layers, suggested
//! bindings, scene markers — and asserts both the error code the specification names and
//! the violation the runtime recorded in runtime-report.json.
//!
//! Without the built runtime the tests print why they are skipped, unless
//! env CI is set, when they fail instead.

#[path = "../../support/ci.rs"]
mod ci;

use std::ffi::c_void;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

use ash::vk::{self, Handle as _};
use openxr as xr;
use serde_json::Value;
use xr::sys::Handle as _;

/// One instance at a time: the runtime holds one, and the environment it
/// reads is the process's.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// The target directory this test was built in.
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .expect("CARGO_TARGET_TMPDIR lies in the target directory")
        .to_path_buf()
}

/// The Linux runtime's manifest, or `None` (skipped, or failing in CI).
fn manifest() -> Option<PathBuf> {
    let manifest = target_dir().join("testrt/linux/holoterrain_testrt.json");
    if manifest.is_file() {
        Some(manifest)
    } else {
        ci::skip(&format!(
            "{} is missing: run scripts/build-test-runtime.sh linux",
            manifest.display()
        ));
        None
    }
}

/// A client of the test runtime, its report going to `out`.
struct Client {
    /// Held while the client lives.
    _turn: MutexGuard<'static, ()>,
    /// Where the runtime writes.
    out: tempfile::TempDir,
    /// The OpenXR instance.
    instance: xr::Instance,
    /// The system.
    system: xr::SystemId,
}

impl Client {
    /// An instance on the test runtime with the extensions a HoloLens app enables.
    fn new(manifest: &Path) -> Self {
        Self::with(manifest, None)
    }

    /// [`Client::new`], with Holographic Remoting emulated and enabled when
    /// `player` (`HOST:PORT`) is given.
    fn with(manifest: &Path, player: Option<&str>) -> Self {
        Self::with_others(manifest, player, &[]).expect("an instance on the test runtime")
    }

    /// [`Client::with`], also enabling the extensions `others` names (each
    /// with its NUL); the result of xrCreateInstance when it fails.
    fn with_others(
        manifest: &Path,
        player: Option<&str>,
        others: &[&[u8]],
    ) -> Result<Self, xr::sys::Result> {
        let turn = ONE_AT_A_TIME.lock().unwrap_or_else(PoisonError::into_inner);
        let out = tempfile::tempdir_in(env!("CARGO_TARGET_TMPDIR")).expect("scratch directory");
        // SAFETY: the lock above keeps every other test of this file (the
        // only threads that read the environment) waiting.
        unsafe {
            std::env::set_var("XR_RUNTIME_JSON", manifest);
            std::env::set_var("HOLOTERRAIN_TESTRT_OUT", out.path());
            std::env::set_var("HOLOTERRAIN_TESTRT_RESOLUTION", "64x48");
            std::env::set_var("XR_LOADER_DEBUG", "none");
            match player {
                Some(player) => std::env::set_var("HOLOTERRAIN_TESTRT_REMOTING", player),
                None => std::env::remove_var("HOLOTERRAIN_TESTRT_REMOTING"),
            }
        }
        // SAFETY: the system's Khronos loader.
        let entry = unsafe { xr::Entry::load(&()) }.expect("the OpenXR loader (libopenxr-loader1)");
        let mut extensions = xr::ExtensionSet::default();
        extensions.khr_vulkan_enable2 = true;
        extensions.khr_composition_layer_depth = true;
        extensions.msft_hand_interaction = true;
        if player.is_some() {
            extensions
                .other
                .push(b"XR_MSFT_holographic_remoting\0".to_vec());
        }
        extensions
            .other
            .extend(others.iter().map(|name| name.to_vec()));
        let instance = entry.create_instance(
            &xr::ApplicationInfo {
                application_name: "wrong-client",
                application_version: 1,
                engine_name: "wrong-client",
                engine_version: 1,
                api_version: xr::Version::new(1, 0, 0),
            },
            &extensions,
            &[],
            &(),
        )?;
        let system = instance
            .system(xr::FormFactor::HEAD_MOUNTED_DISPLAY)
            .expect("the system");
        Ok(Self {
            _turn: turn,
            out,
            instance,
            system,
        })
    }

    /// Destroys the instance and returns the runtime's report.
    fn finish(self) -> Value {
        let Client { out, instance, .. } = self;
        drop(instance);
        let text = std::fs::read_to_string(out.path().join("runtime-report.json"))
            .expect("runtime-report.json written at xrDestroyInstance");
        serde_json::from_str(&text).expect("the report is JSON")
    }
}

/// The raw result of a call the runtime must refuse.
fn refused(result: xr::sys::Result) -> xr::sys::Result {
    assert!(result.into_raw() < 0, "the call succeeded: {result:?}");
    result
}

/// Asserts the report lists a violation of `call` with `reason` in it and
/// the result `result`.
fn assert_violation(report: &Value, call: &str, reason: &str, result: &str) {
    let violations: Vec<&str> = report["violations"]
        .as_array()
        .expect("violations")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        violations
            .iter()
            .any(|line| line.starts_with(&format!("{call}: "))
                && line.contains(reason)
                && line.ends_with(&format!("({result})"))),
        "no violation of {call} with {reason:?} ({result}) among {violations:#?}"
    );
}

/// A Vulkan instance and device made through the runtime, as XR_KHR_vulkan_enable2 wants.
struct Vulkan {
    entry: ash::Entry,
    instance: ash::Instance,
    physical: vk::PhysicalDevice,
    device: ash::Device,
}

impl Vulkan {
    fn new(client: &Client) -> Self {
        // SAFETY: the system's Vulkan loader.
        let entry = unsafe { ash::Entry::load() }.expect("the Vulkan loader (libvulkan1)");
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
        let info = vk::InstanceCreateInfo::default().application_info(&app);
        // SAFETY: the loader's vkGetInstanceProcAddr has OpenXR's signature
        // for it; the create info lives across the call.
        let raw = unsafe {
            client.instance.create_vulkan_instance(
                client.system,
                std::mem::transmute::<
                    vk::PFN_vkGetInstanceProcAddr,
                    xr::sys::platform::VkGetInstanceProcAddr,
                >(entry.static_fn().get_instance_proc_addr),
                &info as *const _ as *const _,
            )
        }
        .expect("xrCreateVulkanInstanceKHR")
        .expect("vkCreateInstance");
        // SAFETY: the instance was just made with this entry.
        let instance =
            unsafe { ash::Instance::load(entry.static_fn(), vk::Instance::from_raw(raw as u64)) };
        // SAFETY: the instance came from xrCreateVulkanInstanceKHR.
        let physical = vk::PhysicalDevice::from_raw(
            unsafe { client.instance.vulkan_graphics_device(client.system, raw) }
                .expect("xrGetVulkanGraphicsDevice2KHR") as u64,
        );
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&priorities)];
        let device_info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
        // SAFETY: as for the instance.
        let raw_device = unsafe {
            client.instance.create_vulkan_device(
                client.system,
                std::mem::transmute::<
                    vk::PFN_vkGetInstanceProcAddr,
                    xr::sys::platform::VkGetInstanceProcAddr,
                >(entry.static_fn().get_instance_proc_addr),
                physical.as_raw() as _,
                &device_info as *const _ as *const _,
            )
        }
        .expect("xrCreateVulkanDeviceKHR")
        .expect("vkCreateDevice");
        // SAFETY: the device was just made on this instance.
        let device = unsafe {
            ash::Device::load(instance.fp_v1_0(), vk::Device::from_raw(raw_device as u64))
        };
        Self {
            entry,
            instance,
            physical,
            device,
        }
    }

    /// The session's graphics binding.
    fn binding(&self) -> xr::sys::GraphicsBindingVulkanKHR {
        xr::sys::GraphicsBindingVulkanKHR {
            ty: xr::sys::GraphicsBindingVulkanKHR::TYPE,
            next: std::ptr::null(),
            instance: self.instance.handle().as_raw() as _,
            physical_device: self.physical.as_raw() as _,
            device: self.device.handle().as_raw() as _,
            queue_family_index: 0,
            queue_index: 0,
        }
    }

    fn destroy(self) {
        // SAFETY: every session on the device is gone; nothing else uses them.
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
        drop(self.entry);
    }
}

/// xrCreateSession with `binding`, raw.
fn create_session(
    client: &Client,
    binding: &xr::sys::GraphicsBindingVulkanKHR,
) -> (xr::sys::Result, xr::sys::Session) {
    let info = xr::sys::SessionCreateInfo {
        ty: xr::sys::SessionCreateInfo::TYPE,
        next: binding as *const _ as *const c_void,
        create_flags: xr::sys::SessionCreateFlags::EMPTY,
        system_id: client.system,
    };
    let mut session = xr::sys::Session::NULL;
    // SAFETY: valid arguments for xrCreateSession.
    let result = unsafe {
        (client.instance.fp().create_session)(client.instance.as_raw(), &info, &mut session)
    };
    (result, session)
}

#[test]
fn a_wrong_structure_type_fails_validation_and_is_recorded() {
    let Some(manifest) = manifest() else {
        return;
    };
    let client = Client::new(&manifest);
    let info = xr::sys::SystemGetInfo {
        ty: xr::sys::StructureType::SESSION_CREATE_INFO,
        next: std::ptr::null(),
        form_factor: xr::FormFactor::HEAD_MOUNTED_DISPLAY,
    };
    let mut system = xr::sys::SystemId::NULL;
    // SAFETY: valid pointers; the structure's type is wrong on purpose.
    let result = refused(unsafe {
        (client.instance.fp().get_system)(client.instance.as_raw(), &info, &mut system)
    });
    assert_eq!(result, xr::sys::Result::ERROR_VALIDATION_FAILURE);
    let report = client.finish();
    assert_violation(
        &report,
        "xrGetSystem",
        "getInfo has type XR_TYPE_SESSION_CREATE_INFO, expected XR_TYPE_SYSTEM_GET_INFO",
        "XR_ERROR_VALIDATION_FAILURE",
    );
}

#[test]
fn a_session_without_the_graphics_requirements_call_and_stale_handles_are_refused() {
    let Some(manifest) = manifest() else {
        return;
    };
    let client = Client::new(&manifest);
    let vulkan = Vulkan::new(&client);
    let binding = vulkan.binding();
    let (result, _) = create_session(&client, &binding);
    assert_eq!(
        refused(result),
        xr::sys::Result::ERROR_GRAPHICS_REQUIREMENTS_CALL_MISSING
    );
    client
        .instance
        .graphics_requirements::<xr::Vulkan>(client.system)
        .expect("xrGetVulkanGraphicsRequirements2KHR");
    let (result, session) = create_session(&client, &binding);
    assert_eq!(result, xr::sys::Result::SUCCESS);
    let fp = client.instance.fp();
    let space_info = xr::sys::ReferenceSpaceCreateInfo {
        ty: xr::sys::ReferenceSpaceCreateInfo::TYPE,
        next: std::ptr::null(),
        reference_space_type: xr::ReferenceSpaceType::LOCAL,
        pose_in_reference_space: xr::Posef::IDENTITY,
    };
    let mut space = xr::sys::Space::NULL;
    // SAFETY: valid arguments.
    let result = unsafe { (fp.create_reference_space)(session, &space_info, &mut space) };
    assert_eq!(result, xr::sys::Result::SUCCESS);
    // SAFETY: a live session; its space goes with it.
    let result = unsafe { (fp.destroy_session)(session) };
    assert_eq!(result, xr::sys::Result::SUCCESS);
    let mut location = xr::sys::SpaceLocation {
        ty: xr::sys::SpaceLocation::TYPE,
        next: std::ptr::null_mut(),
        location_flags: xr::SpaceLocationFlags::EMPTY,
        pose: xr::Posef::IDENTITY,
    };
    // SAFETY: valid pointers; the space died with its session, on purpose.
    let result =
        refused(unsafe { (fp.locate_space)(space, space, xr::Time::from_nanos(1), &mut location) });
    assert_eq!(result, xr::sys::Result::ERROR_HANDLE_INVALID);
    // SAFETY: as above: a destroyed session.
    let result = refused(unsafe { (fp.destroy_session)(session) });
    assert_eq!(result, xr::sys::Result::ERROR_HANDLE_INVALID);
    let report = client.finish();
    vulkan.destroy();
    assert_violation(
        &report,
        "xrCreateSession",
        "xrGetVulkanGraphicsRequirements2KHR was not called",
        "XR_ERROR_GRAPHICS_REQUIREMENTS_CALL_MISSING",
    );
    assert_violation(
        &report,
        "xrLocateSpace",
        "destroyed with its parent",
        "XR_ERROR_HANDLE_INVALID",
    );
    assert_violation(
        &report,
        "xrDestroySession",
        "is not a live XrSession",
        "XR_ERROR_HANDLE_INVALID",
    );
}

/// Both eyes of a projection layer.
type Views = [xr::sys::CompositionLayerProjectionView; 2];
/// The depth info chained to each eye.
type DepthInfos = [xr::sys::CompositionLayerDepthInfoKHR; 2];
/// A change to holoterrain's projection layer: its views, their depth,
/// and the view count.
type LayerChange = dyn Fn(&mut Views, &mut DepthInfos, &mut u32);

/// A running session with a colour and a depth swapchain, each 64×48 × 2 layers.
struct Running {
    client: Client,
    vulkan: Vulkan,
    session: xr::sys::Session,
    space: xr::sys::Space,
    color: xr::sys::Swapchain,
    depth: xr::sys::Swapchain,
}

impl Running {
    fn new(manifest: &Path) -> Self {
        let client = Client::new(manifest);
        let vulkan = Vulkan::new(&client);
        client
            .instance
            .graphics_requirements::<xr::Vulkan>(client.system)
            .expect("xrGetVulkanGraphicsRequirements2KHR");
        let (result, session) = create_session(&client, &vulkan.binding());
        assert_eq!(result, xr::sys::Result::SUCCESS);
        let fp = client.instance.fp();
        let begin = xr::sys::SessionBeginInfo {
            ty: xr::sys::SessionBeginInfo::TYPE,
            next: std::ptr::null(),
            primary_view_configuration_type: xr::ViewConfigurationType::PRIMARY_STEREO,
        };
        // SAFETY: valid arguments; the runtime makes its session READY at once.
        let result = unsafe { (fp.begin_session)(session, &begin) };
        assert_eq!(result, xr::sys::Result::SUCCESS);
        let space_info = xr::sys::ReferenceSpaceCreateInfo {
            ty: xr::sys::ReferenceSpaceCreateInfo::TYPE,
            next: std::ptr::null(),
            reference_space_type: xr::ReferenceSpaceType::LOCAL,
            pose_in_reference_space: xr::Posef::IDENTITY,
        };
        let mut space = xr::sys::Space::NULL;
        // SAFETY: valid arguments.
        let result = unsafe { (fp.create_reference_space)(session, &space_info, &mut space) };
        assert_eq!(result, xr::sys::Result::SUCCESS);
        let swapchain = |format: vk::Format, usage: xr::SwapchainUsageFlags| {
            let info = xr::sys::SwapchainCreateInfo {
                ty: xr::sys::SwapchainCreateInfo::TYPE,
                next: std::ptr::null(),
                create_flags: xr::SwapchainCreateFlags::EMPTY,
                usage_flags: usage,
                format: i64::from(format.as_raw()),
                sample_count: 1,
                width: 64,
                height: 48,
                face_count: 1,
                array_size: 2,
                mip_count: 1,
            };
            let mut handle = xr::sys::Swapchain::NULL;
            // SAFETY: valid arguments.
            let result = unsafe { (fp.create_swapchain)(session, &info, &mut handle) };
            assert_eq!(result, xr::sys::Result::SUCCESS);
            handle
        };
        let color = swapchain(
            vk::Format::R8G8B8A8_SRGB,
            xr::SwapchainUsageFlags::COLOR_ATTACHMENT,
        );
        let depth = swapchain(
            vk::Format::D16_UNORM,
            xr::SwapchainUsageFlags::DEPTH_STENCIL_ATTACHMENT,
        );
        Self {
            client,
            vulkan,
            session,
            space,
            color,
            depth,
        }
    }

    fn fp(&self) -> &xr::raw::Instance {
        self.client.instance.fp()
    }

    /// xrWaitFrame; the frame's predicted display time.
    fn wait(&self) -> xr::Time {
        let mut state = xr::sys::FrameState {
            ty: xr::sys::FrameState::TYPE,
            next: std::ptr::null_mut(),
            predicted_display_time: xr::Time::from_nanos(0),
            predicted_display_period: xr::Duration::from_nanos(0),
            should_render: xr::sys::FALSE,
        };
        // SAFETY: valid arguments.
        let result = unsafe { (self.fp().wait_frame)(self.session, std::ptr::null(), &mut state) };
        assert_eq!(result, xr::sys::Result::SUCCESS);
        state.predicted_display_time
    }

    fn begin(&self) -> xr::sys::Result {
        // SAFETY: valid arguments.
        unsafe { (self.fp().begin_frame)(self.session, std::ptr::null()) }
    }

    /// Acquire, wait and release one image of `swapchain`.
    fn cycle(&self, swapchain: xr::sys::Swapchain) {
        let mut index = 0;
        let wait = xr::sys::SwapchainImageWaitInfo {
            ty: xr::sys::SwapchainImageWaitInfo::TYPE,
            next: std::ptr::null(),
            timeout: xr::Duration::INFINITE,
        };
        // SAFETY: valid arguments, in the specification's order.
        unsafe {
            assert_eq!(
                (self.fp().acquire_swapchain_image)(swapchain, std::ptr::null(), &mut index),
                xr::sys::Result::SUCCESS
            );
            assert_eq!(
                (self.fp().wait_swapchain_image)(swapchain, &wait),
                xr::sys::Result::SUCCESS
            );
            assert_eq!(
                (self.fp().release_swapchain_image)(swapchain, std::ptr::null()),
                xr::sys::Result::SUCCESS
            );
        }
    }

    /// xrEndFrame with one projection layer of `views` (holoterrain's
    /// layer, changed by `change`) at `time` in `blend`.
    fn end(
        &self,
        time: xr::Time,
        blend: xr::EnvironmentBlendMode,
        change: impl FnOnce(&mut Views, &mut DepthInfos, &mut u32),
    ) -> xr::sys::Result {
        let sub_image = |swapchain: xr::sys::Swapchain, layer: u32| xr::sys::SwapchainSubImage {
            swapchain,
            image_rect: xr::Rect2Di {
                offset: xr::Offset2Di { x: 0, y: 0 },
                extent: xr::Extent2Di {
                    width: 64,
                    height: 48,
                },
            },
            image_array_index: layer,
        };
        let mut depth = [0, 1].map(|layer| xr::sys::CompositionLayerDepthInfoKHR {
            ty: xr::sys::CompositionLayerDepthInfoKHR::TYPE,
            next: std::ptr::null(),
            sub_image: sub_image(self.depth, layer),
            min_depth: 0.0,
            max_depth: 1.0,
            near_z: 0.05,
            far_z: 100.0,
        });
        let fov = xr::Fovf {
            angle_left: -0.4,
            angle_right: 0.4,
            angle_up: 0.3,
            angle_down: -0.3,
        };
        let mut views = [0, 1].map(|layer| xr::sys::CompositionLayerProjectionView {
            ty: xr::sys::CompositionLayerProjectionView::TYPE,
            next: std::ptr::null(),
            pose: xr::Posef::IDENTITY,
            fov,
            sub_image: sub_image(self.color, layer),
        });
        let mut view_count = 2;
        change(&mut views, &mut depth, &mut view_count);
        for (view, info) in views.iter_mut().zip(&depth) {
            view.next = info as *const _ as *const c_void;
        }
        let layer = xr::sys::CompositionLayerProjection {
            ty: xr::sys::CompositionLayerProjection::TYPE,
            next: std::ptr::null(),
            layer_flags: xr::CompositionLayerFlags::BLEND_TEXTURE_SOURCE_ALPHA,
            space: self.space,
            view_count,
            views: views.as_ptr(),
        };
        let layers = [&layer as *const xr::sys::CompositionLayerProjection
            as *const xr::sys::CompositionLayerBaseHeader];
        let info = xr::sys::FrameEndInfo {
            ty: xr::sys::FrameEndInfo::TYPE,
            next: std::ptr::null(),
            display_time: time,
            environment_blend_mode: blend,
            layer_count: 1,
            layers: layers.as_ptr(),
        };
        // SAFETY: every structure lives across the call.
        unsafe { (self.fp().end_frame)(self.session, &info) }
    }

    /// Ends the session properly, destroys everything and returns the report.
    fn finish(self) -> Value {
        let fp = self.fp();
        // SAFETY: valid arguments: request exit, then end the STOPPING session.
        unsafe {
            assert_eq!(
                (fp.request_exit_session)(self.session),
                xr::sys::Result::SUCCESS
            );
            assert_eq!((fp.end_session)(self.session), xr::sys::Result::SUCCESS);
            assert_eq!((fp.destroy_session)(self.session), xr::sys::Result::SUCCESS);
        }
        let Running { client, vulkan, .. } = self;
        let report = client.finish();
        vulkan.destroy();
        report
    }
}

#[test]
fn frame_calls_out_of_order_are_refused_and_recorded() {
    let Some(manifest) = manifest() else {
        return;
    };
    let running = Running::new(&manifest);
    let additive = xr::EnvironmentBlendMode::ADDITIVE;
    let time = xr::Time::from_nanos(1);
    assert_eq!(
        refused(running.begin()),
        xr::sys::Result::ERROR_CALL_ORDER_INVALID
    );
    assert_eq!(
        refused(running.end(time, additive, |_, _, _| {})),
        xr::sys::Result::ERROR_CALL_ORDER_INVALID
    );
    let fp = running.fp();
    let mut index = 0;
    let wait = xr::sys::SwapchainImageWaitInfo {
        ty: xr::sys::SwapchainImageWaitInfo::TYPE,
        next: std::ptr::null(),
        timeout: xr::Duration::INFINITE,
    };
    // SAFETY: valid pointers; the order is wrong on purpose.
    unsafe {
        assert_eq!(
            refused((fp.wait_swapchain_image)(running.color, &wait)),
            xr::sys::Result::ERROR_CALL_ORDER_INVALID
        );
        assert_eq!(
            refused((fp.release_swapchain_image)(
                running.color,
                std::ptr::null()
            )),
            xr::sys::Result::ERROR_CALL_ORDER_INVALID
        );
        for _ in 0..3 {
            assert_eq!(
                (fp.acquire_swapchain_image)(running.color, std::ptr::null(), &mut index),
                xr::sys::Result::SUCCESS
            );
        }
        assert_eq!(
            refused((fp.acquire_swapchain_image)(
                running.color,
                std::ptr::null(),
                &mut index
            )),
            xr::sys::Result::ERROR_CALL_ORDER_INVALID
        );
        // SAFETY: as above: the session runs and is not STOPPING.
        assert_eq!(
            refused((fp.end_session)(running.session)),
            xr::sys::Result::ERROR_SESSION_NOT_STOPPING
        );
        for _ in 0..3 {
            assert_eq!(
                (fp.wait_swapchain_image)(running.color, &wait),
                xr::sys::Result::SUCCESS
            );
            assert_eq!(
                (fp.release_swapchain_image)(running.color, std::ptr::null()),
                xr::sys::Result::SUCCESS
            );
        }
    }
    running.wait();
    let report = running.finish();
    assert_violation(
        &report,
        "xrBeginFrame",
        "without a frame from xrWaitFrame",
        "XR_ERROR_CALL_ORDER_INVALID",
    );
    assert_violation(
        &report,
        "xrEndFrame",
        "without xrBeginFrame",
        "XR_ERROR_CALL_ORDER_INVALID",
    );
    assert_violation(
        &report,
        "xrWaitSwapchainImage",
        "no image is acquired",
        "XR_ERROR_CALL_ORDER_INVALID",
    );
    assert_violation(
        &report,
        "xrReleaseSwapchainImage",
        "no image was waited for",
        "XR_ERROR_CALL_ORDER_INVALID",
    );
    assert_violation(
        &report,
        "xrAcquireSwapchainImage",
        "all 3 images are acquired",
        "XR_ERROR_CALL_ORDER_INVALID",
    );
    assert_violation(
        &report,
        "xrEndSession",
        "not STOPPING",
        "XR_ERROR_SESSION_NOT_STOPPING",
    );
}

#[test]
fn each_bad_layer_is_refused_with_the_error_the_specification_names() {
    let Some(manifest) = manifest() else {
        return;
    };
    let running = Running::new(&manifest);
    let additive = xr::EnvironmentBlendMode::ADDITIVE;
    // Before any image is released, a layer cannot show one.
    let time = running.wait();
    assert_eq!(running.begin(), xr::sys::Result::SUCCESS);
    assert_eq!(
        refused(running.end(time, additive, |_, _, _| {})),
        xr::sys::Result::ERROR_LAYER_INVALID
    );
    running.cycle(running.color);
    running.cycle(running.depth);
    let cases: Vec<(xr::sys::Result, Box<LayerChange>)> = vec![
        (
            xr::sys::Result::ERROR_VALIDATION_FAILURE,
            Box::new(|_, _, count| *count = 1),
        ),
        (
            xr::sys::Result::ERROR_SWAPCHAIN_RECT_INVALID,
            Box::new(|views, _, _| views[0].sub_image.image_rect.offset.x = 8),
        ),
        (
            xr::sys::Result::ERROR_VALIDATION_FAILURE,
            Box::new(|views, _, _| views[1].sub_image.image_array_index = 2),
        ),
        (
            xr::sys::Result::ERROR_POSE_INVALID,
            Box::new(|views, _, _| views[0].pose.orientation.w = 2.0),
        ),
        (
            xr::sys::Result::ERROR_VALIDATION_FAILURE,
            Box::new(|views, _, _| views[1].fov.angle_up = -0.5),
        ),
        (
            xr::sys::Result::ERROR_VALIDATION_FAILURE,
            Box::new(|_, depth, _| depth[0].min_depth = 1.0),
        ),
        (
            xr::sys::Result::ERROR_VALIDATION_FAILURE,
            Box::new(|_, depth, _| depth[1].far_z = 0.05),
        ),
    ];
    for (expected, change) in &cases {
        let time = running.wait();
        assert_eq!(running.begin(), xr::sys::Result::SUCCESS);
        assert_eq!(refused(running.end(time, additive, change)), *expected);
    }
    let time = running.wait();
    assert_eq!(running.begin(), xr::sys::Result::SUCCESS);
    let late = xr::Time::from_nanos(time.as_nanos() + 1);
    assert_eq!(
        refused(running.end(late, additive, |_, _, _| {})),
        xr::sys::Result::ERROR_TIME_INVALID
    );
    let time = running.wait();
    assert_eq!(running.begin(), xr::sys::Result::SUCCESS);
    assert_eq!(
        refused(running.end(time, xr::EnvironmentBlendMode::OPAQUE, |_, _, _| {})),
        xr::sys::Result::ERROR_ENVIRONMENT_BLEND_MODE_UNSUPPORTED
    );
    let time = running.wait();
    assert_eq!(running.begin(), xr::sys::Result::SUCCESS);
    assert_eq!(
        running.end(time, additive, |_, _, _| {}),
        xr::sys::Result::SUCCESS,
        "the unchanged layer is fine"
    );
    let report = running.finish();
    for (reason, result) in [
        (
            "layers[0].views[0].subImage.swapchain has no released image",
            "XR_ERROR_LAYER_INVALID",
        ),
        (
            "layers[0] has 1 views; PRIMARY_STEREO has 2",
            "XR_ERROR_VALIDATION_FAILURE",
        ),
        (
            "layers[0].views[0].subImage.imageRect (8, 0) 64×48 is not inside the 64×48 image",
            "XR_ERROR_SWAPCHAIN_RECT_INVALID",
        ),
        (
            "imageArrayIndex 2 is not below the swapchain's arraySize 2",
            "XR_ERROR_VALIDATION_FAILURE",
        ),
        (
            "layers[0].views[0].pose.orientation (0, 0, 0, 2) has length 2, not 1",
            "XR_ERROR_POSE_INVALID",
        ),
        (
            "layers[0].views[1].fov (left -0.4, right 0.4, up -0.5, down -0.3) is not a frustum",
            "XR_ERROR_VALIDATION_FAILURE",
        ),
        (
            "minDepth 1 and maxDepth 1 must satisfy",
            "XR_ERROR_VALIDATION_FAILURE",
        ),
        (
            "nearZ 0.05 and farZ 0.05 must be two different distances",
            "XR_ERROR_VALIDATION_FAILURE",
        ),
        ("is not the predicted display time", "XR_ERROR_TIME_INVALID"),
        (
            "environmentBlendMode OPAQUE: this display blends ADDITIVE only",
            "XR_ERROR_ENVIRONMENT_BLEND_MODE_UNSUPPORTED",
        ),
    ] {
        assert_violation(&report, "xrEndFrame", reason, result);
    }
    assert_eq!(report["frames_submitted"], 1, "only the good frame counts");
    assert_eq!(
        report["violations"].as_array().map(Vec::len),
        Some(10),
        "one violation per bad frame"
    );
}

#[test]
fn a_binding_path_the_profile_lacks_is_unsupported_and_haptics_are_recorded() {
    let Some(manifest) = manifest() else {
        return;
    };
    let running = Running::new(&manifest);
    let instance = &running.client.instance;
    let set = instance
        .create_action_set("input", "Input", 0)
        .expect("xrCreateActionSet");
    let right = instance.string_to_path("/user/hand/right").expect("a path");
    let select = set
        .create_action::<bool>("select", "Select", &[right])
        .expect("xrCreateAction");
    let pulse = set
        .create_action::<xr::Haptic>("pulse", "Pulse", &[right])
        .expect("xrCreateAction");
    let hands = instance
        .string_to_path("/interaction_profiles/microsoft/hand_interaction")
        .expect("a path");
    let path = |text: &str| instance.string_to_path(text).expect("a path");
    // Hands have no buttons to click and nothing to vibrate.
    let result = instance.suggest_interaction_profile_bindings(
        hands,
        &[xr::Binding::new(
            &select,
            path("/user/hand/right/input/select/click"),
        )],
    );
    assert_eq!(result, Err(xr::sys::Result::ERROR_PATH_UNSUPPORTED));
    let result = instance.suggest_interaction_profile_bindings(
        hands,
        &[xr::Binding::new(
            &pulse,
            path("/user/hand/right/output/haptic"),
        )],
    );
    assert_eq!(result, Err(xr::sys::Result::ERROR_PATH_UNSUPPORTED));
    instance
        .suggest_interaction_profile_bindings(
            hands,
            &[xr::Binding::new(
                &select,
                path("/user/hand/right/input/select/value"),
            )],
        )
        .expect("the profile's own select is accepted");
    let attach = xr::sys::SessionActionSetsAttachInfo {
        ty: xr::sys::SessionActionSetsAttachInfo::TYPE,
        next: std::ptr::null(),
        count_action_sets: 1,
        action_sets: &set.as_raw(),
    };
    // SAFETY: valid arguments.
    let result = unsafe { (running.fp().attach_session_action_sets)(running.session, &attach) };
    assert_eq!(result, xr::sys::Result::SUCCESS);
    let haptic_info = xr::sys::HapticActionInfo {
        ty: xr::sys::HapticActionInfo::TYPE,
        next: std::ptr::null(),
        action: pulse.as_raw(),
        subaction_path: right,
    };
    let vibration = xr::sys::HapticVibration {
        ty: xr::sys::HapticVibration::TYPE,
        next: std::ptr::null(),
        duration: xr::Duration::from_nanos(80_000_000),
        frequency: 0.0,
        amplitude: 0.5,
    };
    // SAFETY: valid arguments.
    let result = unsafe {
        (running.fp().apply_haptic_feedback)(
            running.session,
            &haptic_info,
            &vibration as *const _ as *const xr::sys::HapticBaseHeader,
        )
    };
    assert_eq!(
        result,
        xr::sys::Result::SUCCESS,
        "haptics succeed on a HoloLens"
    );
    drop((select, pulse, set));
    let report = running.finish();
    assert_violation(
        &report,
        "xrSuggestInteractionProfileBindings",
        "/interaction_profiles/microsoft/hand_interaction has no /user/hand/right/input/select/click",
        "XR_ERROR_PATH_UNSUPPORTED",
    );
    assert_violation(
        &report,
        "xrSuggestInteractionProfileBindings",
        "has no /user/hand/right/output/haptic",
        "XR_ERROR_PATH_UNSUPPORTED",
    );
    let haptics = report["haptics"].as_array().expect("haptics");
    assert_eq!(haptics.len(), 1, "{haptics:?}");
    assert_eq!(haptics[0]["hand"], "/user/hand/right");
    assert_eq!(haptics[0]["amplitude"], 0.5);
    assert_eq!(haptics[0]["played"], false, "a hand has no haptic output");
}

/// The session states the runtime queued, in order.
fn session_states(client: &Client) -> Vec<xr::SessionState> {
    let mut states = Vec::new();
    loop {
        let mut buffer = std::mem::MaybeUninit::<xr::sys::EventDataBuffer>::zeroed();
        // SAFETY: the buffer is an XrEventDataBuffer, its header set first.
        let result = unsafe {
            buffer
                .as_mut_ptr()
                .cast::<xr::sys::BaseInStructure>()
                .write(xr::sys::BaseInStructure {
                    ty: xr::sys::EventDataBuffer::TYPE,
                    next: std::ptr::null(),
                });
            (client.instance.fp().poll_event)(client.instance.as_raw(), buffer.as_mut_ptr())
        };
        if result == xr::sys::Result::EVENT_UNAVAILABLE {
            return states;
        }
        assert_eq!(result, xr::sys::Result::SUCCESS);
        // SAFETY: xrPollEvent filled the buffer; its type says what it holds.
        let header = unsafe { buffer.as_ptr().cast::<xr::sys::BaseInStructure>().read() };
        if header.ty == xr::sys::StructureType::EVENT_DATA_SESSION_STATE_CHANGED {
            // SAFETY: as the type says.
            let changed = unsafe {
                buffer
                    .as_ptr()
                    .cast::<xr::sys::EventDataSessionStateChanged>()
                    .read()
            };
            states.push(changed.state);
        }
    }
}

#[test]
fn a_remoting_session_created_without_a_connection_is_lost_at_once() {
    let Some(manifest) = manifest() else {
        return;
    };
    let client = Client::with(&manifest, Some("127.0.0.1:8265"));
    let vulkan = Vulkan::new(&client);
    client
        .instance
        .graphics_requirements::<xr::Vulkan>(client.system)
        .expect("xrGetVulkanGraphicsRequirements2KHR");
    let (result, session) = create_session(&client, &vulkan.binding());
    assert_eq!(
        result,
        xr::sys::Result::SUCCESS,
        "the session is created, as Microsoft documents"
    );
    assert_eq!(
        session_states(&client),
        [xr::SessionState::IDLE, xr::SessionState::LOSS_PENDING],
        "and lost at once: nothing streams without a connection"
    );
    // SAFETY: the live session, destroyed once.
    let result = unsafe { (client.instance.fp().destroy_session)(session) };
    assert_eq!(result, xr::sys::Result::SUCCESS);
    let report = client.finish();
    vulkan.destroy();
    assert_eq!(report["violations"], Value::Array(Vec::new()));
    assert_eq!(report["remoting"]["connected"], false);
}

/// An extension function of `client`'s instance, by name.
///
/// # Safety
/// `T` is the function's pointer type.
unsafe fn extension_fn<T: Copy>(client: &Client, name: &std::ffi::CStr) -> T {
    let mut function = None;
    // SAFETY: a live instance and a NUL-terminated name.
    let result = unsafe {
        (client.instance.entry().fp().get_instance_proc_addr)(
            client.instance.as_raw(),
            name.as_ptr(),
            &mut function,
        )
    };
    assert_eq!(result, xr::sys::Result::SUCCESS, "{name:?}");
    let function = function.expect("a function");
    // SAFETY: the caller names T, the function's type.
    unsafe { std::mem::transmute_copy(&function) }
}

#[test]
fn scene_markers_need_scene_understanding_and_a_wrong_id_or_short_list_is_refused() {
    use holoterrain::xr::sys::scene_understanding as su;
    let Some(manifest) = manifest() else {
        return;
    };
    // The marker extension alone: its dependency is missing.
    let alone = Client::with_others(&manifest, None, &[b"XR_MSFT_scene_marker\0"]);
    assert_eq!(
        alone.err(),
        Some(xr::sys::Result::ERROR_EXTENSION_DEPENDENCY_NOT_ENABLED)
    );
    let client = Client::with_others(
        &manifest,
        None,
        &[b"XR_MSFT_scene_understanding\0", b"XR_MSFT_scene_marker\0"],
    )
    .expect("an instance with scene markers");
    let vulkan = Vulkan::new(&client);
    client
        .instance
        .graphics_requirements::<xr::Vulkan>(client.system)
        .expect("xrGetVulkanGraphicsRequirements2KHR");
    let (result, session) = create_session(&client, &vulkan.binding());
    assert_eq!(result, xr::sys::Result::SUCCESS);
    let fp = client.instance.fp();
    let space_info = xr::sys::ReferenceSpaceCreateInfo {
        ty: xr::sys::ReferenceSpaceCreateInfo::TYPE,
        next: std::ptr::null(),
        reference_space_type: xr::ReferenceSpaceType::LOCAL,
        pose_in_reference_space: xr::Posef::IDENTITY,
    };
    let mut space = xr::sys::Space::NULL;
    // SAFETY: valid arguments.
    let result = unsafe { (fp.create_reference_space)(session, &space_info, &mut space) };
    assert_eq!(result, xr::sys::Result::SUCCESS);
    // SAFETY: each type is the header's for its name.
    let (create_observer, compute, create_scene, get_components, decoded): (
        su::CreateSceneObserverFn,
        su::ComputeNewSceneFn,
        su::CreateSceneFn,
        su::GetSceneComponentsFn,
        su::GetSceneMarkerDecodedStringFn,
    ) = unsafe {
        (
            extension_fn(&client, c"xrCreateSceneObserverMSFT"),
            extension_fn(&client, c"xrComputeNewSceneMSFT"),
            extension_fn(&client, c"xrCreateSceneMSFT"),
            extension_fn(&client, c"xrGetSceneComponentsMSFT"),
            extension_fn(&client, c"xrGetSceneMarkerDecodedStringMSFT"),
        )
    };
    let observer_info = su::SceneObserverCreateInfo {
        ty: xr::sys::StructureType::SCENE_OBSERVER_CREATE_INFO_MSFT,
        next: std::ptr::null(),
    };
    let mut observer = xr::sys::SceneObserverMSFT::NULL;
    // SAFETY: valid arguments.
    let result = unsafe { create_observer(session, &observer_info, &mut observer) };
    assert_eq!(result, xr::sys::Result::SUCCESS);
    let features = [su::COMPUTE_FEATURE_MARKER];
    let compute_info = su::NewSceneComputeInfo {
        ty: xr::sys::StructureType::NEW_SCENE_COMPUTE_INFO_MSFT,
        next: std::ptr::null(),
        requested_feature_count: 1,
        requested_features: features.as_ptr(),
        consistency: su::CONSISTENCY_SNAPSHOT_COMPLETE,
        bounds: su::SceneBounds {
            space,
            time: xr::Time::from_nanos(1),
            sphere_count: 0,
            spheres: std::ptr::null(),
            box_count: 0,
            boxes: std::ptr::null(),
            frustum_count: 0,
            frustums: std::ptr::null(),
        },
    };
    // SAFETY: valid arguments.
    let result = unsafe { compute(observer, &compute_info) };
    assert_eq!(
        result,
        xr::sys::Result::SUCCESS,
        "the marker feature is taken"
    );
    let scene_info = su::SceneCreateInfo {
        ty: xr::sys::StructureType::SCENE_CREATE_INFO_MSFT,
        next: std::ptr::null(),
    };
    let mut scene = xr::sys::SceneMSFT::NULL;
    // SAFETY: valid arguments; the computation completed at once.
    let result = unsafe { create_scene(observer, &scene_info, &mut scene) };
    assert_eq!(result, xr::sys::Result::SUCCESS);

    // A marker id the scene does not hold.
    let unknown = su::UuidMsft { bytes: [7; 16] };
    let mut count = 0;
    // SAFETY: valid pointers; the id is wrong on purpose.
    let result = refused(unsafe { decoded(scene, &unknown, 0, &mut count, std::ptr::null_mut()) });
    assert_eq!(
        result,
        xr::sys::Result::ERROR_SCENE_COMPONENT_ID_INVALID_MSFT
    );

    // A marker list shorter than the components' capacity.
    let get_info = su::SceneComponentsGetInfo {
        ty: xr::sys::StructureType::SCENE_COMPONENTS_GET_INFO_MSFT,
        next: std::ptr::null(),
        component_type: su::COMPONENT_TYPE_MARKER,
    };
    let mut markers = [su::SceneMarker {
        marker_type: 0,
        last_seen_time: xr::Time::from_nanos(0),
        center: xr::Offset2Df::default(),
        size: xr::Extent2Df::default(),
    }];
    let mut marker_list = su::SceneMarkers {
        ty: xr::sys::StructureType::SCENE_MARKERS_MSFT,
        next: std::ptr::null(),
        scene_marker_capacity_input: 1,
        scene_markers: markers.as_mut_ptr(),
    };
    let mut components = [su::SceneComponent {
        component_type: 0,
        id: su::UuidMsft::default(),
        parent_id: su::UuidMsft::default(),
        update_time: xr::Time::from_nanos(0),
    }; 2];
    let mut listed = su::SceneComponents {
        ty: xr::sys::StructureType::SCENE_COMPONENTS_MSFT,
        next: (&raw mut marker_list).cast(),
        component_capacity_input: 2,
        component_count_output: 0,
        components: components.as_mut_ptr(),
    };
    // SAFETY: valid pointers; the marker list is short on purpose.
    let result = refused(unsafe { get_components(scene, &get_info, &mut listed) });
    assert_eq!(result, xr::sys::Result::ERROR_SIZE_INSUFFICIENT);
    // The same list chained for planes: the wrong component type.
    let plane_info = su::SceneComponentsGetInfo {
        component_type: su::COMPONENT_TYPE_PLANE,
        ..get_info
    };
    // SAFETY: valid pointers; the component type is wrong on purpose.
    let result = refused(unsafe { get_components(scene, &plane_info, &mut listed) });
    assert_eq!(
        result,
        xr::sys::Result::ERROR_SCENE_COMPONENT_TYPE_MISMATCH_MSFT
    );

    // SAFETY: the live session; its observer, scene and space go with it.
    let result = unsafe { (fp.destroy_session)(session) };
    assert_eq!(result, xr::sys::Result::SUCCESS);
    let report = client.finish();
    vulkan.destroy();
    assert_violation(
        &report,
        "xrGetSceneMarkerDecodedStringMSFT",
        "markerId is not a marker component of this scene",
        "XR_ERROR_SCENE_COMPONENT_ID_INVALID_MSFT",
    );
    assert_violation(
        &report,
        "xrGetSceneComponentsMSFT",
        "XrSceneMarkersMSFT.sceneMarkerCapacityInput 1 is less than components.componentCapacityInput 2",
        "XR_ERROR_SIZE_INSUFFICIENT",
    );
    assert_violation(
        &report,
        "xrGetSceneComponentsMSFT",
        "XrSceneMarkersMSFT or XrSceneMarkerQRCodesMSFT is chained, but getInfo.componentType is not XR_SCENE_COMPONENT_TYPE_MARKER_MSFT",
        "XR_ERROR_SCENE_COMPONENT_TYPE_MISMATCH_MSFT",
    );
    assert_eq!(report["scene_markers"]["computes"], 1);
}
