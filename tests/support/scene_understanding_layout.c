/* The XR_MSFT_scene_understanding structures and values holoterrain
 * declares itself (openxr-sys 0.14 lacks them), as the system's openxr.h
 * (Debian libopenxr-dev) defines them. Built by the unit test in
 * src/xr/sys/scene_understanding.rs, which compares the C compiler's sizes,
 * offsets and values with the Rust declarations'. */
#include <stddef.h>
#include <stdio.h>
#include <openxr/openxr.h>

#define SIZE(name, type) printf("%s.size %zu\n", name, sizeof(type))
#define AT(name, type, member) printf("%s.%s %zu\n", name, #member, offsetof(type, member))
#define VALUE(name, value) printf("%s %lld\n", name, (long long)(value))

int main(void) {
    SIZE("observer_info", XrSceneObserverCreateInfoMSFT);
    SIZE("scene_info", XrSceneCreateInfoMSFT);
    SIZE("sphere", XrSceneSphereBoundMSFT);
    AT("sphere", XrSceneSphereBoundMSFT, radius);
    SIZE("box", XrSceneOrientedBoxBoundMSFT);
    SIZE("frustum", XrSceneFrustumBoundMSFT);
    SIZE("bounds", XrSceneBoundsMSFT);
    AT("bounds", XrSceneBoundsMSFT, time);
    AT("bounds", XrSceneBoundsMSFT, spheres);
    AT("bounds", XrSceneBoundsMSFT, boxCount);
    AT("bounds", XrSceneBoundsMSFT, frustums);
    SIZE("compute", XrNewSceneComputeInfoMSFT);
    AT("compute", XrNewSceneComputeInfoMSFT, requestedFeatures);
    AT("compute", XrNewSceneComputeInfoMSFT, consistency);
    AT("compute", XrNewSceneComputeInfoMSFT, bounds);
    SIZE("component", XrSceneComponentMSFT);
    AT("component", XrSceneComponentMSFT, id);
    AT("component", XrSceneComponentMSFT, updateTime);
    SIZE("components", XrSceneComponentsMSFT);
    AT("components", XrSceneComponentsMSFT, componentCountOutput);
    AT("components", XrSceneComponentsMSFT, components);
    SIZE("get_info", XrSceneComponentsGetInfoMSFT);
    AT("get_info", XrSceneComponentsGetInfoMSFT, componentType);
    SIZE("location", XrSceneComponentLocationMSFT);
    AT("location", XrSceneComponentLocationMSFT, pose);
    SIZE("locations", XrSceneComponentLocationsMSFT);
    AT("locations", XrSceneComponentLocationsMSFT, locations);
    SIZE("locate_info", XrSceneComponentsLocateInfoMSFT);
    AT("locate_info", XrSceneComponentsLocateInfoMSFT, baseSpace);
    AT("locate_info", XrSceneComponentsLocateInfoMSFT, time);
    AT("locate_info", XrSceneComponentsLocateInfoMSFT, componentIds);
    SIZE("plane", XrScenePlaneMSFT);
    printf("plane.extent %zu\n", offsetof(XrScenePlaneMSFT, size));
    AT("plane", XrScenePlaneMSFT, meshBufferId);
    AT("plane", XrScenePlaneMSFT, supportsIndicesUint16);
    SIZE("planes", XrScenePlanesMSFT);
    AT("planes", XrScenePlanesMSFT, scenePlanes);
    VALUE("FEATURE_PLANE", XR_SCENE_COMPUTE_FEATURE_PLANE_MSFT);
    VALUE("CONSISTENCY_SNAPSHOT_COMPLETE", XR_SCENE_COMPUTE_CONSISTENCY_SNAPSHOT_COMPLETE_MSFT);
    VALUE("CONSISTENCY_OCCLUSION_OPTIMIZED", XR_SCENE_COMPUTE_CONSISTENCY_OCCLUSION_OPTIMIZED_MSFT);
    VALUE("COMPONENT_TYPE_PLANE", XR_SCENE_COMPONENT_TYPE_PLANE_MSFT);
    VALUE("STATE_NONE", XR_SCENE_COMPUTE_STATE_NONE_MSFT);
    VALUE("STATE_UPDATING", XR_SCENE_COMPUTE_STATE_UPDATING_MSFT);
    VALUE("STATE_COMPLETED", XR_SCENE_COMPUTE_STATE_COMPLETED_MSFT);
    VALUE("STATE_COMPLETED_WITH_ERROR", XR_SCENE_COMPUTE_STATE_COMPLETED_WITH_ERROR_MSFT);
    VALUE("ALIGNMENT_HORIZONTAL", XR_SCENE_PLANE_ALIGNMENT_TYPE_HORIZONTAL_MSFT);
    VALUE("TYPE_NEW_SCENE_COMPUTE_INFO", XR_TYPE_NEW_SCENE_COMPUTE_INFO_MSFT);
    VALUE("TYPE_SCENE_PLANES", XR_TYPE_SCENE_PLANES_MSFT);
    return 0;
}
