//! The Vulkan device the renderer runs on: loader, instance, validation
//! messenger, physical device, device, graphics queue and memory allocator,
//! created here (standalone) or handed over by the OpenXR runtime (external).
use std::ffi::{CStr, c_void};
use std::mem::ManuallyDrop;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use ash::vk;
use gpu_allocator::vulkan::{Allocator, AllocatorCreateDesc};
use gpu_allocator::{AllocationSizes, AllocatorDebugSettings};

use crate::render::backend::ValidationCounter;
use crate::render::error::{RenderError, vk_error};

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

/// Who destroys the instance and device when the context is dropped.
#[derive(Debug)]
pub enum Ownership {
    /// The context created them and destroys them.
    Owned,
    /// Someone else (the OpenXR runtime) created them; the guard destroys
    /// them after the context and everything built on it are gone.
    External(DropGuard),
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

/// What an adopted instance and device need when their last user is gone
/// (typically `vkDestroyDevice` and `vkDestroyInstance`); runs once, on drop.
pub struct DropGuard(Option<Box<dyn FnOnce() + Send + Sync>>);

impl DropGuard {
    /// A guard that runs `destroy` when dropped.
    pub fn new(destroy: impl FnOnce() + Send + Sync + 'static) -> Self {
        DropGuard(Some(Box::new(destroy)))
    }
}

impl std::fmt::Debug for DropGuard {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("DropGuard")
    }
}

impl Drop for DropGuard {
    fn drop(&mut self) {
        if let Some(destroy) = self.0.take() {
            destroy();
        }
    }
}

/// A debug-utils messenger and the counter its callback feeds.
struct DebugMessenger {
    /// Entry points of VK_EXT_debug_utils.
    loader: ash::ext::debug_utils::Instance,
    /// The messenger handle.
    messenger: vk::DebugUtilsMessengerEXT,
    /// Where the callback counts messages; it outlives the instance because the
    /// instance-creation messenger in `pNext` points at it too.
    counter: ValidationCounter,
}

/// The device, its queue and its allocator; shared (`Arc`) by every renderer
/// built on it, and dropped after them.
pub struct GpuContext {
    /// Vulkan loader entry points; kept so the library stays loaded.
    entry: ash::Entry,
    /// The instance.
    instance: ash::Instance,
    /// The validation messenger, when validation is on.
    debug: Option<DebugMessenger>,
    /// The physical device the device was created on.
    physical_device: vk::PhysicalDevice,
    /// The physical device's name, for messages.
    device_name: String,
    /// The logical device.
    device: ash::Device,
    /// The family of `queue`, which supports graphics and transfer.
    queue_family_index: u32,
    /// The one queue every renderer submits to (single-threaded use).
    queue: vk::Queue,
    /// GPU memory for buffers and images; dropped before the device.
    allocator: ManuallyDrop<Mutex<Allocator>>,
    /// Who destroys the instance and device: the context, or the guard it
    /// was handed when it adopted them (run at the end of `Drop`).
    ownership: Ownership,
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

    /// Loads Vulkan, creates an instance (with the validation layer and a
    /// counting messenger when `validation`), picks a physical device that
    /// can render the terrain and creates a device with one graphics queue.
    pub fn standalone(validation: bool) -> Result<Arc<Self>, RenderError> {
        // SAFETY: loading libvulkan runs its initialisers; the loader is a
        // well-behaved system library and nothing else is loaded concurrently.
        let entry = unsafe { ash::Entry::load() }.map_err(|error| RenderError::NoVulkanDriver {
            detail: format!("could not load the Vulkan loader libvulkan ({error})"),
        })?;
        if validation {
            check_validation_layer(&entry)?;
        }
        let counter = ValidationCounter::default();
        let requirements = Self::instance_requirements(validation);
        let instance = create_instance(&entry, &requirements, validation.then_some(&counter))?;
        let debug = if validation {
            // SAFETY: the instance was created with VK_EXT_debug_utils just above.
            match unsafe { create_messenger(&entry, &instance, counter) } {
                Ok(debug) => Some(debug),
                Err(error) => {
                    // SAFETY: nothing else was created from the instance yet.
                    unsafe { instance.destroy_instance(None) };
                    return Err(error);
                }
            }
        } else {
            None
        };
        let device_parts = pick_physical_device(&instance).and_then(|(physical_device, family)| {
            create_device(&instance, physical_device, family)
                .map(|device| (physical_device, family, device))
        });
        let (physical_device, queue_family_index, device) = match device_parts {
            Ok(parts) => parts,
            Err(error) => {
                // SAFETY: the messenger and instance are unused by anything else.
                unsafe { destroy_instance_and_messenger(&instance, debug.as_ref()) };
                return Err(error);
            }
        };
        Self::assemble(
            entry,
            instance,
            debug,
            physical_device,
            device,
            queue_family_index,
            Ownership::Owned,
        )
    }

    /// Adopts an instance and device someone else created (the OpenXR
    /// runtime, through XR_KHR_vulkan_enable2), as wgpu-hal's
    /// `Adapter::device_from_raw` does: the context uses them, and runs
    /// `drop_guard` (which destroys them) exactly once, when the context's
    /// last user is gone, or before returning an error. With
    /// `count_validation`, the context also counts validation messages through
    /// a debug-utils messenger it creates (and destroys before the guard
    /// runs); that fails with `DebugUtilsMissing` unless the instance was
    /// created with VK_EXT_debug_utils.
    ///
    /// # Safety
    /// - `instance` is a live instance loaded from `entry`, satisfying
    ///   [`Self::instance_requirements`]; `physical_device` belongs to it;
    ///   `device` is a live device created on `physical_device`, satisfying
    ///   [`Self::device_requirements`], with a queue in `queue_family_index`
    ///   that supports graphics.
    /// - From this call on, nothing but the context and what is built on it
    ///   destroys the instance or device: only `drop_guard` does, and every
    ///   other user of them (an OpenXR session) is gone before the context's
    ///   last `Arc` is dropped.
    pub unsafe fn from_external(
        external: ExternalDevice,
        count_validation: bool,
        drop_guard: DropGuard,
    ) -> Result<Arc<Self>, RenderError> {
        let ExternalDevice {
            entry,
            instance,
            physical_device,
            device,
            queue_family_index,
        } = external;
        let debug = if count_validation {
            // SAFETY: the instance is live (this function's contract). The
            // loader returns no entry point for an extension the instance was
            // created without.
            let create_messenger_fn = unsafe {
                entry.get_instance_proc_addr(
                    instance.handle(),
                    c"vkCreateDebugUtilsMessengerEXT".as_ptr(),
                )
            };
            if create_messenger_fn.is_none() {
                drop(drop_guard);
                return Err(RenderError::DebugUtilsMissing);
            }
            // SAFETY: VK_EXT_debug_utils is enabled (checked just above).
            match unsafe { create_messenger(&entry, &instance, ValidationCounter::default()) } {
                Ok(debug) => Some(debug),
                Err(error) => {
                    drop(drop_guard);
                    return Err(error);
                }
            }
        } else {
            None
        };
        Self::assemble(
            entry,
            instance,
            debug,
            physical_device,
            device,
            queue_family_index,
            Ownership::External(drop_guard),
        )
    }

    fn assemble(
        entry: ash::Entry,
        instance: ash::Instance,
        debug: Option<DebugMessenger>,
        physical_device: vk::PhysicalDevice,
        device: ash::Device,
        queue_family_index: u32,
        ownership: Ownership,
    ) -> Result<Arc<Self>, RenderError> {
        let device_name = physical_device_name(&instance, physical_device);
        let allocator = Allocator::new(&AllocatorCreateDesc {
            instance: instance.clone(),
            device: device.clone(),
            physical_device,
            debug_settings: AllocatorDebugSettings::default(),
            buffer_device_address: false,
            allocation_sizes: AllocationSizes::new(MEMORY_BLOCK_SIZE, MEMORY_BLOCK_SIZE),
        });
        let allocator = match allocator {
            Ok(allocator) => allocator,
            Err(error) => {
                match ownership {
                    Ownership::Owned => {
                        // SAFETY: the device has no children yet; the instance only the messenger.
                        unsafe {
                            device.destroy_device(None);
                            destroy_instance_and_messenger(&instance, debug.as_ref());
                        }
                    }
                    Ownership::External(drop_guard) => {
                        if let Some(debug) = &debug {
                            // SAFETY: the messenger is ours and unused.
                            unsafe {
                                debug
                                    .loader
                                    .destroy_debug_utils_messenger(debug.messenger, None)
                            };
                        }
                        drop(drop_guard);
                    }
                }
                return Err(error.into());
            }
        };
        // SAFETY: the device was created with one queue in this family.
        let queue = unsafe { device.get_device_queue(queue_family_index, 0) };
        Ok(Arc::new(GpuContext {
            entry,
            instance,
            debug,
            physical_device,
            device_name,
            device,
            queue_family_index,
            queue,
            allocator: ManuallyDrop::new(Mutex::new(allocator)),
            ownership,
        }))
    }

    /// The Vulkan loader's entry points.
    pub fn entry(&self) -> &ash::Entry {
        &self.entry
    }

    /// The instance.
    pub fn instance(&self) -> &ash::Instance {
        &self.instance
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
        &self.device
    }

    /// The queue family of [`Self::queue`].
    pub fn queue_family_index(&self) -> u32 {
        self.queue_family_index
    }

    /// The graphics queue.
    pub fn queue(&self) -> vk::Queue {
        self.queue
    }

    /// Whether the context created the instance and device (else it adopted them).
    pub fn owns_device(&self) -> bool {
        matches!(self.ownership, Ownership::Owned)
    }

    /// Validation warnings and errors so far; `None` when validation is off.
    pub fn validation_messages(&self) -> Option<u64> {
        self.debug.as_ref().map(|debug| debug.counter.count())
    }

    /// A handle on the validation count that stays readable after the context
    /// is dropped (teardown messages, such as leaks, land in it too).
    pub fn validation_counter(&self) -> Option<ValidationCounter> {
        self.debug.as_ref().map(|debug| debug.counter.clone())
    }

    /// Whether `format` supports `features` with optimal tiling.
    pub fn supports_format(&self, format: vk::Format, features: vk::FormatFeatureFlags) -> bool {
        // SAFETY: the physical device belongs to the live instance.
        let properties = unsafe {
            self.instance
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
        // SAFETY: every renderer holds an Arc of the context, so they are all
        // gone; the allocator frees its memory blocks before the device goes,
        // and the messenger goes before the instance.
        unsafe {
            let _ = self.device.device_wait_idle();
            ManuallyDrop::drop(&mut self.allocator);
            match &mut self.ownership {
                Ownership::Owned => {
                    self.device.destroy_device(None);
                    destroy_instance_and_messenger(&self.instance, self.debug.as_ref());
                }
                Ownership::External(drop_guard) => {
                    if let Some(debug) = &self.debug {
                        debug
                            .loader
                            .destroy_debug_utils_messenger(debug.messenger, None);
                    }
                    // The adopter's destruction runs last, after every
                    // child of the device and instance made here is gone.
                    drop(std::mem::replace(drop_guard, DropGuard(None)));
                }
            }
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
        Err(RenderError::ValidationLayerMissing)
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
    let mut creation_messenger = counter.map(messenger_create_info);
    if let Some(messenger) = creation_messenger.as_mut() {
        create_info = create_info.push_next(messenger);
    }
    // SAFETY: every pointer in the create info lives until the call returns.
    unsafe { entry.create_instance(&create_info, None) }.map_err(|result| match result {
        vk::Result::ERROR_INCOMPATIBLE_DRIVER => RenderError::NoVulkanDriver {
            detail: "the Vulkan loader found no driver (ICD) supporting Vulkan 1.1".into(),
        },
        vk::Result::ERROR_LAYER_NOT_PRESENT => RenderError::ValidationLayerMissing,
        result => vk_error("vkCreateInstance")(result),
    })
}

fn messenger_create_info(
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

/// # Safety
/// `instance` must have been created with VK_EXT_debug_utils enabled.
unsafe fn create_messenger(
    entry: &ash::Entry,
    instance: &ash::Instance,
    counter: ValidationCounter,
) -> Result<DebugMessenger, RenderError> {
    let loader = ash::ext::debug_utils::Instance::new(entry, instance);
    // SAFETY: the callback's user data points into `counter`, which the
    // returned DebugMessenger keeps alive as long as the messenger exists.
    let messenger =
        unsafe { loader.create_debug_utils_messenger(&messenger_create_info(&counter), None) }
            .map_err(vk_error("vkCreateDebugUtilsMessengerEXT"))?;
    Ok(DebugMessenger {
        loader,
        messenger,
        counter,
    })
}

/// # Safety
/// Nothing may use the instance or the messenger afterwards, and every child
/// of the instance other than the messenger must already be destroyed.
unsafe fn destroy_instance_and_messenger(instance: &ash::Instance, debug: Option<&DebugMessenger>) {
    // SAFETY: per this function's contract.
    unsafe {
        if let Some(debug) = debug {
            debug
                .loader
                .destroy_debug_utils_messenger(debug.messenger, None);
        }
        instance.destroy_instance(None);
    }
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
        // outlives the messenger (see DebugMessenger::counter).
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
        return Err(RenderError::NoVulkanDriver {
            detail: "the Vulkan loader found no physical device".into(),
        });
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
                first_problem.get_or_insert_with(|| RenderError::UnsuitableDevice {
                    device: physical_device_name(instance, device),
                    missing,
                });
            }
        }
    }
    suitable.sort_by_key(|&(device, _)| rank(device));
    suitable.first().copied().ok_or_else(|| {
        first_problem.unwrap_or_else(|| RenderError::NoVulkanDriver {
            detail: "the Vulkan loader found no usable physical device".into(),
        })
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

    /// A device and instance made here as the OpenXR runtime would make them,
    /// with a guard that destroys them and records that it ran.
    fn adoptable(
        validation: bool,
        counter: &ValidationCounter,
    ) -> (ExternalDevice, DropGuard, Arc<AtomicU64>) {
        // SAFETY: loading the system's Vulkan loader.
        let entry = unsafe { ash::Entry::load() }.unwrap();
        let instance = create_instance(
            &entry,
            &GpuContext::instance_requirements(validation),
            validation.then_some(counter),
        )
        .unwrap();
        let (physical_device, family) = pick_physical_device(&instance).unwrap();
        let device = create_device(&instance, physical_device, family).unwrap();
        let guard_runs = Arc::new(AtomicU64::new(0));
        let (guard_device, guard_instance, runs) =
            (device.clone(), instance.clone(), guard_runs.clone());
        let guard = DropGuard::new(move || {
            runs.fetch_add(1, Ordering::Relaxed);
            // SAFETY: the guard runs once, after the context (the only other
            // user) is gone; the layer reports any child left behind.
            unsafe {
                guard_device.destroy_device(None);
                guard_instance.destroy_instance(None);
            }
        });
        let external = ExternalDevice {
            entry,
            instance,
            physical_device,
            device,
            queue_family_index: family,
        };
        (external, guard, guard_runs)
    }

    #[test]
    fn an_adopted_device_is_destroyed_once_when_its_last_user_goes() {
        let _ = env_logger::builder().is_test(true).try_init();
        let counter = ValidationCounter::default();
        let (external, guard, guard_runs) = adoptable(true, &counter);
        // SAFETY: the handles are live, made for the renderer, and only the
        // guard destroys them.
        let ctx = unsafe { GpuContext::from_external(external, true, guard) }.unwrap();
        assert!(!ctx.owns_device());
        let user = Arc::clone(&ctx);
        drop(ctx);
        assert_eq!(
            guard_runs.load(Ordering::Relaxed),
            0,
            "destroyed while in use"
        );
        // SAFETY: the device is live while `user` holds the context.
        unsafe {
            let fence = user
                .device()
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .unwrap();
            user.device().destroy_fence(fence, None);
        }
        drop(user);
        assert_eq!(guard_runs.load(Ordering::Relaxed), 1);
        assert_eq!(counter.count(), 0, "validation messages (see the log)");
    }

    #[test]
    fn counting_on_an_instance_without_debug_utils_is_refused_and_still_destroys() {
        let counter = ValidationCounter::default();
        let (external, guard, guard_runs) = adoptable(false, &counter);
        // SAFETY: as above.
        let result = unsafe { GpuContext::from_external(external, true, guard) };
        assert!(matches!(result, Err(RenderError::DebugUtilsMissing)));
        assert_eq!(guard_runs.load(Ordering::Relaxed), 1);
    }

    #[test]
    fn a_context_without_validation_has_no_count() {
        let ctx = GpuContext::standalone(false).unwrap();
        assert_eq!(ctx.validation_messages(), None);
        assert!(ctx.owns_device());
    }
}
