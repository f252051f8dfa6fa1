//! The Vulkan device the renderer runs on: loader, instance, validation
//! messenger, physical device, device, graphics queue and memory allocator,
//! created here (standalone) or created by the OpenXR runtime and adopted.
//! Either way the context owns them and destroys them when its last user
//! is gone: the device, then the messenger, then the instance, so every
//! message the validation layer raises at teardown is counted.
use std::ffi::{CStr, c_void};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use gpu_allocator::{AllocationSizes, AllocatorDebugSettings};

use super::error::{VulkanError, vk_error};
use crate::render::backend::ValidationCounter;
use crate::render::error::RenderError;

/// The Vulkan API version the renderer needs (multiview is core in 1.1).
pub const VULKAN_API_VERSION: u32 = vk::API_VERSION_1_1;

/// The Khronos validation layer's name.
pub const VALIDATION_LAYER: &CStr = c"VK_LAYER_KHRONOS_validation";

/// Memory blocks the allocator carves buffers and images from; the renderer's
/// resources are a few megabytes, so the 256 MiB default would only waste memory.
const MEMORY_BLOCK_SIZE: u64 = 16 * 1024 * 1024;

/// What a Vulkan instance must offer the renderer; the OpenXR path merges this
/// into the create info it passes to `xrCreateVulkanInstanceKHR`.
#[derive(Debug, Clone)]
pub struct InstanceRequirements {
    /// Lowest `VkApplicationInfo::apiVersion` to ask for.
    pub api_version: u32,
    /// Layers to enable.
    pub layers: Vec<&'static CStr>,
    /// Instance extensions to enable.
    pub extensions: Vec<&'static CStr>,
}

/// What a Vulkan device must offer the renderer; the OpenXR path merges this
/// into the create info it passes to `xrCreateVulkanDeviceKHR`.
#[derive(Debug, Clone)]
pub struct DeviceRequirements {
    /// Device extensions to enable (none beyond Vulkan 1.1 core today).
    pub extensions: Vec<&'static CStr>,
    /// The multiview feature, to chain into `VkDeviceCreateInfo::pNext`
    /// (valid on Vulkan 1.1 devices, unlike `VkPhysicalDeviceVulkan11Features`).
    pub multiview_features: vk::PhysicalDeviceMultiviewFeatures<'static>,
}

/// An instance and device created elsewhere, for [`GpuContext::from_external`].
pub struct ExternalDevice {
    /// The Vulkan loader the instance was created with.
    pub entry: ash::Entry,
    /// The instance.
    pub instance: ash::Instance,
    /// The physical device the device was created on.
    pub physical_device: vk::PhysicalDevice,
    /// The logical device.
    pub device: ash::Device,
    /// A queue family of the device with graphics; its queue 0 is used.
    pub queue_family_index: u32,
}

/// A debug-utils messenger and its entry points.
struct DebugMessenger {
    /// Entry points of VK_EXT_debug_utils.
    loader: ash::ext::debug_utils::Instance,
    /// The messenger handle.
    messenger: vk::DebugUtilsMessengerEXT,
}

/// The instance and its validation messenger. Dropping it destroys the
/// messenger and then the instance; it is dropped after the device, so the
/// messenger still counts what the layer reports when the device goes.
struct OwnedInstance {
    /// Vulkan loader entry points; kept so the library stays loaded.
    entry: ash::Entry,
    /// The instance.
    instance: ash::Instance,
    /// The messenger counting validation messages while the instance lives.
    debug: Option<DebugMessenger>,
    /// Where validation messages are counted, by `debug` and by the
    /// messenger chained into the instance's creation (which also sees
    /// vkDestroyInstance); dropped after both.
    counter: Option<ValidationCounter>,
}

impl Drop for OwnedInstance {
    fn drop(&mut self) {
        // SAFETY: the instance's owner is gone: its device (dropped before
        // this, see GpuContext's field order) and every other child were
        // destroyed; the messenger is the instance's last child.
        unsafe {
            if let Some(debug) = &self.debug {
                debug
                    .loader
                    .destroy_debug_utils_messenger(debug.messenger, None);
            }
            self.instance.destroy_instance(None);
        }
        #[cfg(test)]
        tally::instance_destroyed();
    }
}

/// The logical device, destroyed when dropped.
struct OwnedDevice(ash::Device);

impl Drop for OwnedDevice {
    fn drop(&mut self) {
        // SAFETY: the device's owner is gone: everything built on it held an
        // `Arc` of the context, the allocator freed its memory (field order),
        // and the context waited for the device to idle.
        unsafe { self.0.destroy_device(None) };
        #[cfg(test)]
        tally::device_destroyed();
    }
}

/// The device, its queue and its allocator; shared (`Arc`) by every renderer
/// built on it, and dropped after them. Fields drop in declaration order:
/// the allocator's memory, the device, then the messenger and the instance.
pub struct GpuContext {
    /// GPU memory for buffers and images; freed before the device.
    allocator: Mutex<Allocator>,
    /// The logical device.
    device: OwnedDevice,
    /// The instance and its validation messenger; destroyed last.
    instance: OwnedInstance,
    /// The physical device the device was created on.
    physical_device: vk::PhysicalDevice,
    /// The physical device's name, for messages.
    device_name: String,
    /// The family of `queue`, which supports graphics and transfer.
    queue_family_index: u32,
    /// The one queue every renderer submits to (single-threaded use).
    queue: vk::Queue,
}

impl GpuContext {
    /// What an instance needs; with `validation`, the Khronos layer and
    /// VK_EXT_debug_utils so messages can be counted.
    pub fn instance_requirements(validation: bool) -> InstanceRequirements {
        let (layers, extensions) = if validation {
            (vec![VALIDATION_LAYER], vec![ash::ext::debug_utils::NAME])
        } else {
            (Vec::new(), Vec::new())
        };
        InstanceRequirements {
            api_version: VULKAN_API_VERSION,
            layers,
            extensions,
        }
    }

    /// What a device needs: the multiview feature turned on.
    pub fn device_requirements() -> DeviceRequirements {
        DeviceRequirements {
            extensions: Vec::new(),
            multiview_features: vk::PhysicalDeviceMultiviewFeatures::default().multiview(true),
        }
    }

    /// A messenger that counts the validation layer's warnings and errors
    /// into `counter`. Chained into `VkInstanceCreateInfo::pNext` (with
    /// [`Self::instance_requirements`]`(true)`) it sees vkCreateInstance and
    /// vkDestroyInstance too: the OpenXR path chains it into what it hands
    /// the runtime and gives the same counter to [`Self::from_external`].
    /// Its user data points into `counter`, which must outlive the instance.
    pub fn counting_messenger_info(
        counter: &ValidationCounter,
    ) -> vk::DebugUtilsMessengerCreateInfoEXT<'static> {
        vk::DebugUtilsMessengerCreateInfoEXT::default()
            .message_severity(
                vk::DebugUtilsMessageSeverityFlagsEXT::WARNING
                    | vk::DebugUtilsMessageSeverityFlagsEXT::ERROR,
            )
            .message_type(
                vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                    | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION
                    | vk::DebugUtilsMessageTypeFlagsEXT::PERFORMANCE,
            )
            .pfn_user_callback(Some(count_validation_message))
            .user_data(counter.as_atomic_ptr().cast_mut().cast())
    }

    /// Loads Vulkan, creates an instance (with the validation layer and a
    /// counting messenger when `validation`), picks a physical device that
    /// can render the terrain and creates a device with one graphics queue.
    pub fn standalone(validation: bool) -> Result<Arc<Self>, RenderError> {
        // SAFETY: loading libvulkan runs its initialisers; the loader is a
        // well-behaved system library and nothing else is loaded concurrently.
        let entry = unsafe { ash::Entry::load() }.map_err(|error| VulkanError::NoDriver {
            detail: format!("could not load the Vulkan loader libvulkan ({error})"),
        })?;
        if validation {
            check_validation_layer(&entry)?;
        }
        let counter = validation.then(ValidationCounter::default);
        let raw_instance = create_instance(
            &entry,
            &Self::instance_requirements(validation),
            counter.as_ref(),
        )?;
        let mut instance = OwnedInstance {
            entry,
            instance: raw_instance,
            debug: None,
            counter,
        };
        if let Some(counter) = &instance.counter {
            // SAFETY: the instance was created with VK_EXT_debug_utils just
            // above; on an error, dropping `instance` destroys it.
            instance.debug =
                Some(unsafe { create_messenger(&instance.entry, &instance.instance, counter) }?);
        }
        let (physical_device, queue_family_index) = pick_physical_device(&instance.instance)?;
        let device = OwnedDevice(create_device(
            &instance.instance,
            physical_device,
            queue_family_index,
        )?);
        Self::assemble(instance, device, physical_device, queue_family_index)
    }

    /// Takes over an instance and device someone else created: under
    /// XR_KHR_vulkan_enable2 the OpenXR runtime creates them for the app,
    /// which owns them (openxrs' Vulkan example destroys them itself). The
    /// context destroys them when its last user is gone, or before
    /// returning an error, as it does its own. With `validation`, the
    /// counter of the messenger chained into the instance's creation
    /// ([`Self::counting_messenger_info`]), the context counts into it
    /// with a messenger of its own for the instance's whole life; that fails
    /// with `DebugUtilsMissing` unless the instance was created with
    /// VK_EXT_debug_utils.
    ///
    /// # Safety
    /// - `instance` is a live instance loaded from `entry`, satisfying
    ///   [`Self::instance_requirements`]; `physical_device` belongs to it;
    ///   `device` is a live device created on `physical_device`, satisfying
    ///   [`Self::device_requirements`], with a queue in `queue_family_index`
    ///   that supports graphics.
    /// - From this call on, nothing else destroys the instance or device,
    ///   and every other user of them (an OpenXR session) is gone before the
    ///   context's last `Arc` is dropped.
    pub unsafe fn from_external(
        external: ExternalDevice,
        validation: Option<ValidationCounter>,
    ) -> Result<Arc<Self>, RenderError> {
        let ExternalDevice {
            entry,
            instance,
            physical_device,
            device,
            queue_family_index,
        } = external;
        // Owned from here: an error below destroys the device, then the instance.
        let mut instance = OwnedInstance {
            entry,
            instance,
            debug: None,
            counter: validation,
        };
        let device = OwnedDevice(device);
        if let Some(counter) = &instance.counter {
            // SAFETY: the instance is live (this function's contract). The
            // loader returns no entry point for an extension the instance was
            // created without.
            let create_messenger_fn = unsafe {
                instance.entry.get_instance_proc_addr(
                    instance.instance.handle(),
                    c"vkCreateDebugUtilsMessengerEXT".as_ptr(),
                )
            };
            if create_messenger_fn.is_none() {
                return Err(VulkanError::DebugUtilsMissing.into());
            }
            // SAFETY: VK_EXT_debug_utils is enabled (checked just above).
            instance.debug =
                Some(unsafe { create_messenger(&instance.entry, &instance.instance, counter) }?);
        }
        Self::assemble(instance, device, physical_device, queue_family_index)
    }

    fn assemble(
        instance: OwnedInstance,
        device: OwnedDevice,
        physical_device: vk::PhysicalDevice,
        queue_family_index: u32,
    ) -> Result<Arc<Self>, RenderError> {
        let device_name = physical_device_name(&instance.instance, physical_device);
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.instance.clone(),
            device: device.0.clone(),
            physical_device,
            debug_settings: AllocatorDebugSettings::default(),
            buffer_device_address: false,
            allocation_sizes: AllocationSizes::new(MEMORY_BLOCK_SIZE, MEMORY_BLOCK_SIZE),
        })?;
        // SAFETY: the device was created with one queue in this family.
        let queue = unsafe { device.0.get_device_queue(queue_family_index, 0) };
        Ok(Arc::new(GpuContext {
            allocator: Mutex::new(allocator),
            device,
            instance,
            physical_device,
            device_name,
            queue_family_index,
            queue,
        }))
    }

    /// The Vulkan loader's entry points.
    pub fn entry(&self) -> &ash::Entry {
        &self.instance.entry
    }

    /// The instance.
    pub fn instance(&self) -> &ash::Instance {
        &self.instance.instance
    }

    /// The physical device.
    pub fn physical_device(&self) -> vk::PhysicalDevice {
        self.physical_device
    }

    /// The physical device's name.
    pub fn device_name(&self) -> &str {
        &self.device_name
    }

    /// The logical device.
    pub fn device(&self) -> &ash::Device {
        &self.device.0
    }

    /// The queue family of [`Self::queue`].
    pub fn queue_family_index(&self) -> u32 {
        self.queue_family_index
    }

    /// The graphics queue.
    pub fn queue(&self) -> vk::Queue {
        self.queue
    }

    /// Validation warnings and errors so far; `None` when validation is off.
    pub fn validation_messages(&self) -> Option<u64> {
        self.instance.counter.as_ref().map(ValidationCounter::count)
    }

    /// A handle on the validation count that stays readable after the context
    /// is dropped (teardown messages, such as leaks, land in it too).
    pub fn validation_counter(&self) -> Option<ValidationCounter> {
        self.instance.counter.clone()
    }

    /// Whether `format` supports `features` with optimal tiling.
    pub fn supports_format(&self, format: vk::Format, features: vk::FormatFeatureFlags) -> bool {
        // SAFETY: the physical device belongs to the live instance.
        let properties = unsafe {
            self.instance()
                .get_physical_device_format_properties(self.physical_device, format)
        };
        properties.optimal_tiling_features.contains(features)
    }

    /// The allocator, locked (setup only: the frame loop never allocates).
    pub(crate) fn allocator(&self) -> MutexGuard<'_, Allocator> {
        // A poisoned lock only means another thread panicked mid-allocation;
        // the allocator's own state is still consistent.
        self.allocator
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Drop for GpuContext {
    fn drop(&mut self) {
        // The fields then drop in order: memory, device, messenger, instance.
        // SAFETY: every renderer holds an Arc of the context, so they are all
        // gone and nothing records or submits any more.
        if let Err(error) = unsafe { self.device().device_wait_idle() } {
            log::error!("waiting for the Vulkan device before destroying it failed: {error}");
        }
    }
}

/// Fails with `ValidationLayerMissing` unless the Khronos layer is installed.
fn check_validation_layer(entry: &ash::Entry) -> Result<(), RenderError> {
    // SAFETY: the entry is loaded.
    let layers = unsafe { entry.enumerate_instance_layer_properties() }
        .map_err(vk_error("vkEnumerateInstanceLayerProperties"))?;
    let present = layers
        .iter()
        .any(|layer| layer.layer_name_as_c_str() == Ok(VALIDATION_LAYER));
    if present {
        Ok(())
    } else {
        Err(VulkanError::ValidationLayerMissing.into())
    }
}

fn create_instance(
    entry: &ash::Entry,
    requirements: &InstanceRequirements,
    counter: Option<&ValidationCounter>,
) -> Result<ash::Instance, RenderError> {
    let app_info = vk::ApplicationInfo::default()
        .application_name(c"holoterrain")
        .application_version(1)
        .engine_name(c"holoterrain")
        .api_version(requirements.api_version);
    let layers: Vec<_> = requirements
        .layers
        .iter()
        .map(|name| name.as_ptr())
        .collect();
    let extensions: Vec<_> = requirements
        .extensions
        .iter()
        .map(|name| name.as_ptr())
        .collect();
    let mut create_info = vk::InstanceCreateInfo::default()
        .application_info(&app_info)
        .enabled_layer_names(&layers)
        .enabled_extension_names(&extensions);
    // Chained into pNext, a messenger also sees vkCreateInstance and
    // vkDestroyInstance, where leaked instance children are reported.
    let mut creation_messenger = counter.map(GpuContext::counting_messenger_info);
    if let Some(messenger) = creation_messenger.as_mut() {
        create_info = create_info.push_next(messenger);
    }
    // SAFETY: every pointer in the create info lives until the call returns.
    unsafe { entry.create_instance(&create_info, None) }.map_err(|result| match result {
        vk::Result::ERROR_INCOMPATIBLE_DRIVER => VulkanError::NoDriver {
            detail: "the Vulkan loader found no driver (ICD) supporting Vulkan 1.1".into(),
        }
        .into(),
        vk::Result::ERROR_LAYER_NOT_PRESENT => VulkanError::ValidationLayerMissing.into(),
        result => vk_error("vkCreateInstance")(result),
    })
}

/// # Safety
/// `instance` must have been created with VK_EXT_debug_utils enabled.
unsafe fn create_messenger(
    entry: &ash::Entry,
    instance: &ash::Instance,
    counter: &ValidationCounter,
) -> Result<DebugMessenger, RenderError> {
    let loader = ash::ext::debug_utils::Instance::new(entry, instance);
    let create_info = GpuContext::counting_messenger_info(counter);
    // SAFETY: the callback's user data points into `counter`, which the
    // OwnedInstance holding the messenger keeps alive longer than it.
    let messenger = unsafe { loader.create_debug_utils_messenger(&create_info, None) }
        .map_err(vk_error("vkCreateDebugUtilsMessengerEXT"))?;
    Ok(DebugMessenger { loader, messenger })
}

/// Counts one validation message and logs it.
unsafe extern "system" fn count_validation_message(
    severity: vk::DebugUtilsMessageSeverityFlagsEXT,
    kind: vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user_data: *mut c_void,
) -> vk::Bool32 {
    if !user_data.is_null() {
        // SAFETY: user_data is the AtomicU64 inside a ValidationCounter that
        // outlives the messenger and the instance (see OwnedInstance::counter).
        let counter = unsafe { &*user_data.cast::<AtomicU64>() };
        counter.fetch_add(1, Ordering::Relaxed);
    }
    // SAFETY: the layer passes valid callback data for the call's duration.
    let message = unsafe { data.as_ref() }
        .and_then(|data| unsafe { data.message_as_c_str() })
        .map(|message| message.to_string_lossy().into_owned())
        .unwrap_or_default();
    if severity.contains(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR) {
        log::error!("Vulkan validation ({kind:?}): {message}");
    } else {
        log::warn!("Vulkan validation ({kind:?}): {message}");
    }
    vk::FALSE
}

fn physical_device_name(instance: &ash::Instance, physical_device: vk::PhysicalDevice) -> String {
    // SAFETY: the physical device belongs to the live instance.
    let properties = unsafe { instance.get_physical_device_properties(physical_device) };
    properties
        .device_name_as_c_str()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_else(|_| "unnamed device".into())
}

/// Why `physical_device` cannot run the renderer, or its graphics queue family.
fn graphics_queue_family(
    instance: &ash::Instance,
    physical_device: vk::PhysicalDevice,
) -> Result<u32, String> {
    // SAFETY: the physical device belongs to the live instance.
    let properties = unsafe { instance.get_physical_device_properties(physical_device) };
    if properties.api_version < VULKAN_API_VERSION {
        return Err("it supports only Vulkan 1.0 (multiview needs 1.1)".into());
    }
    let mut multiview = vk::PhysicalDeviceMultiviewFeatures::default();
    let mut features = vk::PhysicalDeviceFeatures2::default().push_next(&mut multiview);
    // SAFETY: as above; the feature chain lives for the call.
    unsafe { instance.get_physical_device_features2(physical_device, &mut features) };
    if multiview.multiview == vk::FALSE {
        return Err("it does not support multiview".into());
    }
    // SAFETY: as above.
    let families = unsafe { instance.get_physical_device_queue_family_properties(physical_device) };
    families
        .iter()
        .position(|family| family.queue_flags.contains(vk::QueueFlags::GRAPHICS))
        .map(|index| index as u32)
        .ok_or_else(|| "it has no graphics queue".into())
}

/// The best device that can render: discrete, then integrated, then others.
fn pick_physical_device(
    instance: &ash::Instance,
) -> Result<(vk::PhysicalDevice, u32), RenderError> {
    // SAFETY: the instance is live.
    let devices = unsafe { instance.enumerate_physical_devices() }
        .map_err(vk_error("vkEnumeratePhysicalDevices"))?;
    if devices.is_empty() {
        return Err(VulkanError::NoDriver {
            detail: "the Vulkan loader found no physical device".into(),
        }
        .into());
    }
    let rank = |device: vk::PhysicalDevice| {
        // SAFETY: the physical device belongs to the live instance.
        match unsafe { instance.get_physical_device_properties(device) }.device_type {
            vk::PhysicalDeviceType::DISCRETE_GPU => 0,
            vk::PhysicalDeviceType::INTEGRATED_GPU => 1,
            vk::PhysicalDeviceType::VIRTUAL_GPU => 2,
            _ => 3,
        }
    };
    let mut first_problem = None;
    let mut suitable: Vec<_> = Vec::new();
    for &device in &devices {
        match graphics_queue_family(instance, device) {
            Ok(family) => suitable.push((device, family)),
            Err(missing) => {
                first_problem.get_or_insert_with(|| VulkanError::UnsuitableDevice {
                    device: physical_device_name(instance, device),
                    missing,
                });
            }
        }
    }
    suitable.sort_by_key(|&(device, _)| rank(device));
    suitable.first().copied().ok_or_else(|| {
        first_problem
            .unwrap_or_else(|| VulkanError::NoDriver {
                detail: "the Vulkan loader found no usable physical device".into(),
            })
            .into()
    })
}

fn create_device(
    instance: &ash::Instance,
    physical_device: vk::PhysicalDevice,
    queue_family_index: u32,
) -> Result<ash::Device, RenderError> {
    let requirements = GpuContext::device_requirements();
    let mut multiview = requirements.multiview_features;
    let extensions: Vec<_> = requirements
        .extensions
        .iter()
        .map(|name| name.as_ptr())
        .collect();
    let priorities = [1.0];
    let queues = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(queue_family_index)
        .queue_priorities(&priorities)];
    let create_info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&queues)
        .enabled_extension_names(&extensions)
        .push_next(&mut multiview);
    // SAFETY: the physical device belongs to the live instance and every
    // pointer in the create info lives until the call returns.
    unsafe { instance.create_device(physical_device, &create_info, None) }
        .map_err(vk_error("vkCreateDevice"))
}

/// Test builds only: how many devices and instances the current thread's
/// contexts destroyed, so a test can see when (and how often) that happens.
#[cfg(test)]
mod tally {
    use std::cell::Cell;

    thread_local! {
        static DEVICES: Cell<u32> = const { Cell::new(0) };
        static INSTANCES: Cell<u32> = const { Cell::new(0) };
    }

    pub(super) fn device_destroyed() {
        DEVICES.set(DEVICES.get() + 1);
    }

    pub(super) fn instance_destroyed() {
        INSTANCES.set(INSTANCES.get() + 1);
    }

    /// (devices, instances) destroyed on this thread so far.
    pub(super) fn destroyed() -> (u32, u32) {
        (DEVICES.get(), INSTANCES.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validation_counts_an_object_leaked_at_teardown() {
        let _ = env_logger::builder().is_test(true).try_init();
        let ctx = GpuContext::standalone(true).unwrap();
        let counter = ctx.validation_counter().unwrap();
        // SAFETY: the device is live; the fence is leaked on purpose.
        unsafe {
            ctx.device()
                .create_fence(&vk::FenceCreateInfo::default(), None)
        }
        .unwrap();
        assert_eq!(counter.count(), 0);
        drop(ctx);
        assert!(counter.count() > 0, "the leaked fence went unreported");
    }

    /// A device and instance made here as the OpenXR runtime makes them for
    /// the app, with `counter` chained into the instance's creation when
    /// validating.
    fn adoptable(counter: Option<&ValidationCounter>) -> ExternalDevice {
        // SAFETY: loading the system's Vulkan loader.
        let entry = unsafe { ash::Entry::load() }.unwrap();
        let instance = create_instance(
            &entry,
            &GpuContext::instance_requirements(counter.is_some()),
            counter,
        )
        .unwrap();
        let (physical_device, family) = pick_physical_device(&instance).unwrap();
        let device = create_device(&instance, physical_device, family).unwrap();
        ExternalDevice {
            entry,
            instance,
            physical_device,
            device,
            queue_family_index: family,
        }
    }

    /// The test-only hook: a buffer created on the context's device and
    /// never destroyed.
    fn leak_a_buffer(ctx: &GpuContext) {
        let create_info = vk::BufferCreateInfo::default()
            .size(256)
            .usage(vk::BufferUsageFlags::TRANSFER_DST);
        // SAFETY: the device is live; the buffer is leaked on purpose.
        unsafe { ctx.device().create_buffer(&create_info, None) }.unwrap();
    }

    #[test]
    fn an_adopted_device_is_destroyed_once_when_its_last_user_goes() {
        let _ = env_logger::builder().is_test(true).try_init();
        let counter = ValidationCounter::default();
        let external = adoptable(Some(&counter));
        // SAFETY: the handles are live, made for the renderer, and only the
        // context destroys them.
        let ctx = unsafe { GpuContext::from_external(external, Some(counter)) }.unwrap();
        let counter = ctx.validation_counter().unwrap();
        let before = tally::destroyed();
        let user = Arc::clone(&ctx);
        drop(ctx);
        assert_eq!(tally::destroyed(), before, "destroyed while in use");
        // SAFETY: the device is live while `user` holds the context.
        unsafe {
            let fence = user
                .device()
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .unwrap();
            user.device().destroy_fence(fence, None);
        }
        drop(user);
        assert_eq!(tally::destroyed(), (before.0 + 1, before.1 + 1));
        assert_eq!(counter.count(), 0, "validation messages (see the log)");
    }

    #[test]
    fn a_leak_on_an_adopted_device_is_counted_when_the_device_is_destroyed() {
        let _ = env_logger::builder().is_test(true).try_init();
        let counter = ValidationCounter::default();
        let external = adoptable(Some(&counter));
        // SAFETY: as above.
        let ctx = unsafe { GpuContext::from_external(external, Some(counter)) }.unwrap();
        let counter = ctx.validation_counter().unwrap();
        leak_a_buffer(&ctx);
        assert_eq!(counter.count(), 0);
        drop(ctx);
        // The layer reports the buffer at vkDestroyDevice, where only the
        // context's own messenger listens (the one chained into the
        // instance's creation hears vkCreateInstance and vkDestroyInstance).
        assert!(
            counter.count() > 0,
            "the buffer leaked at device destruction went uncounted, so a validation assertion would pass"
        );
    }

    #[test]
    fn counting_on_an_instance_without_debug_utils_is_refused_and_still_destroys() {
        let external = adoptable(None);
        let before = tally::destroyed();
        // SAFETY: as above.
        let result =
            unsafe { GpuContext::from_external(external, Some(ValidationCounter::default())) };
        assert!(matches!(
            result.err().as_ref().and_then(RenderError::backend_error),
            Some(VulkanError::DebugUtilsMissing)
        ));
        assert_eq!(tally::destroyed(), (before.0 + 1, before.1 + 1));
    }

    #[test]
    fn a_context_without_validation_has_no_count() {
        let ctx = GpuContext::standalone(false).unwrap();
        assert_eq!(ctx.validation_messages(), None);
    }
}
