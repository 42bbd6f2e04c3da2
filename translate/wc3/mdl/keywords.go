package mdl

import "strings"

// kw identifies a keyword; kwUnknown is any other word.
type kw uint16

const (
	kwUnknown kw = iota
	// The top-level blocks, kwVersion to kwCollisionShape, come first.
	kwVersion
	kwModel
	kwSequences
	kwGlobalSequences
	kwTextures
	kwMaterials
	kwTextureAnims
	kwGeoset
	kwGeosetAnim
	kwBone
	kwLight
	kwHelper
	kwAttachment
	kwPivotPoints
	kwParticleEmitter
	kwParticleEmitter2
	kwRibbonEmitter
	kwCamera
	kwEventObject
	kwBindPose               // Reforged
	kwFaceFX                 // Reforged
	kwParticleEmitterPopcorn // Reforged
	kwCollisionShape
	kwFormatVersion
	kwName
	kwAnimationFile
	kwBlendTime
	kwMinimumExtent
	kwMaximumExtent
	kwBoundsRadius
	kwAnim
	kwInterval
	kwMoveSpeed
	kwNonLooping
	kwRarity
	kwSyncPoint
	kwDuration
	kwBitmap
	kwImage
	kwReplaceableId
	kwWrapWidth
	kwWrapHeight
	kwMaterial
	kwConstantColor
	kwSortPrimsNearZ
	kwSortPrimsFarZ
	kwFullResolution
	kwPriorityPlane
	kwTwoSided
	kwLayer
	kwFilterMode
	kwNone
	kwTransparent
	kwBlend
	kwAdditive
	kwAddAlpha
	kwModulate
	kwModulate2x
	kwAlphaKey
	kwUnshaded
	kwSphereEnvMap
	kwUnfogged
	kwNoDepthTest
	kwNoDepthSet
	kwTextureID
	kwTVertexAnimId
	kwCoordId
	kwAlpha
	kwTVertexAnim
	kwTranslation
	kwRotation
	kwScaling
	kwVertices
	kwNormals
	kwTVertices
	kwVertexGroup
	kwFaces
	kwTriangles
	kwGroups
	kwMatrices
	kwMaterialID
	kwSelectionGroup
	kwUnselectable
	kwColor
	kwDropShadow
	kwGeosetId
	kwObjectId
	kwParent
	kwDontInherit
	kwBillboarded
	kwBillboardedLockX
	kwBillboardedLockY
	kwBillboardedLockZ
	kwBillboardLockX
	kwBillboardLockY
	kwBillboardLockZ
	kwCameraAnchored
	kwMultiple
	kwGeosetAnimId
	kwOmnidirectional
	kwDirectional
	kwAmbient
	kwAttenuationStart
	kwAttenuationEnd
	kwIntensity
	kwAmbColor
	kwAmbIntensity
	kwVisibility
	kwPath
	kwAttachmentID
	kwEmitterUsesMDL
	kwEmitterUsesTGA
	kwEmissionRate
	kwGravity
	kwLongitude
	kwLatitude
	kwParticle
	kwLifeSpan
	kwInitVelocity
	kwLineEmitter
	kwModelSpace
	kwXYQuad
	kwSpeed
	kwVariation
	kwSquirt
	kwWidth
	kwLength
	kwRows
	kwColumns
	kwHead
	kwTail
	kwBoth
	kwTailLength
	kwTime
	kwSegmentColor
	kwParticleScaling
	kwLifeSpanUVAnim
	kwDecayUVAnim
	kwTailUVAnim
	kwTailDecayUVAnim
	kwHeightAbove
	kwHeightBelow
	kwTextureSlot
	kwPosition
	kwFieldOfView
	kwFarClip
	kwNearClip
	kwTarget
	kwEventTrack
	kwGlobalSeqId
	kwBox
	kwPlane
	kwSphere
	kwCylinder
	kwLinear
	kwDontInterp
	kwHermite
	kwBezier
	kwInTan
	kwOutTan
	// Reforged (900 and later).
	kwShader
	kwLevelOfDetail
	kwTangents
	kwSkinWeights
	kwUnlit
	kwEmissiveGain
	kwFresnelColor
	kwFresnelOpacity
	kwFresnelTeamColor
	kwShaderTypeId
	kwNormalTextureID
	kwORMTextureID
	kwEmissiveTextureID
	kwTeamColorTextureID
	kwReflectionsTextureID
	kwShadowIntensity
	kwStatic // the last
)

// keywordNames spells every keyword as the game's files do; keyword matches them ignoring case.
var keywordNames = [...]string{
	kwVersion: "Version", kwModel: "Model", kwSequences: "Sequences",
	kwGlobalSequences: "GlobalSequences", kwTextures: "Textures", kwMaterials: "Materials",
	kwTextureAnims: "TextureAnims", kwGeoset: "Geoset", kwGeosetAnim: "GeosetAnim", kwBone: "Bone",
	kwLight: "Light", kwHelper: "Helper", kwAttachment: "Attachment", kwPivotPoints: "PivotPoints",
	kwParticleEmitter: "ParticleEmitter", kwParticleEmitter2: "ParticleEmitter2",
	kwRibbonEmitter: "RibbonEmitter", kwCamera: "Camera", kwEventObject: "EventObject",
	kwCollisionShape: "CollisionShape", kwFormatVersion: "FormatVersion", kwName: "Name",
	kwAnimationFile: "AnimationFile", kwBlendTime: "BlendTime", kwMinimumExtent: "MinimumExtent",
	kwMaximumExtent: "MaximumExtent", kwBoundsRadius: "BoundsRadius", kwAnim: "Anim",
	kwInterval: "Interval", kwMoveSpeed: "MoveSpeed", kwNonLooping: "NonLooping",
	kwRarity: "Rarity", kwSyncPoint: "SyncPoint", kwDuration: "Duration", kwBitmap: "Bitmap",
	kwImage: "Image", kwReplaceableId: "ReplaceableId", kwWrapWidth: "WrapWidth",
	kwWrapHeight: "WrapHeight", kwMaterial: "Material", kwConstantColor: "ConstantColor",
	kwSortPrimsNearZ: "SortPrimsNearZ", kwSortPrimsFarZ: "SortPrimsFarZ",
	kwFullResolution: "FullResolution", kwPriorityPlane: "PriorityPlane", kwTwoSided: "TwoSided",
	kwLayer: "Layer", kwFilterMode: "FilterMode", kwNone: "None", kwTransparent: "Transparent",
	kwBlend: "Blend", kwAdditive: "Additive", kwAddAlpha: "AddAlpha", kwModulate: "Modulate",
	kwModulate2x: "Modulate2x", kwAlphaKey: "AlphaKey", kwUnshaded: "Unshaded",
	kwSphereEnvMap: "SphereEnvMap", kwUnfogged: "Unfogged", kwNoDepthTest: "NoDepthTest",
	kwNoDepthSet: "NoDepthSet", kwTextureID: "TextureID", kwTVertexAnimId: "TVertexAnimId",
	kwCoordId: "CoordId", kwAlpha: "Alpha", kwTVertexAnim: "TVertexAnim",
	kwTranslation: "Translation", kwRotation: "Rotation", kwScaling: "Scaling",
	kwVertices: "Vertices", kwNormals: "Normals", kwTVertices: "TVertices",
	kwVertexGroup: "VertexGroup", kwFaces: "Faces", kwTriangles: "Triangles", kwGroups: "Groups",
	kwMatrices: "Matrices", kwMaterialID: "MaterialID", kwSelectionGroup: "SelectionGroup",
	kwShader: "Shader", kwLevelOfDetail: "LevelOfDetail", kwTangents: "Tangents", kwSkinWeights: "SkinWeights",
	kwBindPose: "BindPose", kwFaceFX: "FaceFX", kwParticleEmitterPopcorn: "ParticleEmitterPopcorn",
	kwUnlit: "Unlit", kwEmissiveGain: "EmissiveGain", kwFresnelColor: "FresnelColor",
	kwFresnelOpacity: "FresnelOpacity", kwFresnelTeamColor: "FresnelTeamColor",
	kwShaderTypeId: "ShaderTypeId", kwNormalTextureID: "NormalTextureID", kwORMTextureID: "ORMTextureID",
	kwEmissiveTextureID: "EmissiveTextureID", kwTeamColorTextureID: "TeamColorTextureID",
	kwReflectionsTextureID: "ReflectionsTextureID", kwShadowIntensity: "ShadowIntensity",
	kwUnselectable: "Unselectable", kwColor: "Color", kwDropShadow: "DropShadow",
	kwGeosetId: "GeosetId", kwObjectId: "ObjectId", kwParent: "Parent",
	kwDontInherit: "DontInherit", kwBillboarded: "Billboarded",
	kwBillboardedLockX: "BillboardedLockX", kwBillboardedLockY: "BillboardedLockY",
	kwBillboardedLockZ: "BillboardedLockZ", kwBillboardLockX: "BillboardLockX",
	kwBillboardLockY: "BillboardLockY", kwBillboardLockZ: "BillboardLockZ",
	kwCameraAnchored: "CameraAnchored", kwMultiple: "Multiple", kwGeosetAnimId: "GeosetAnimId",
	kwOmnidirectional: "Omnidirectional", kwDirectional: "Directional", kwAmbient: "Ambient",
	kwAttenuationStart: "AttenuationStart", kwAttenuationEnd: "AttenuationEnd",
	kwIntensity: "Intensity", kwAmbColor: "AmbColor", kwAmbIntensity: "AmbIntensity",
	kwVisibility: "Visibility", kwPath: "Path", kwAttachmentID: "AttachmentID",
	kwEmitterUsesMDL: "EmitterUsesMDL", kwEmitterUsesTGA: "EmitterUsesTGA",
	kwEmissionRate: "EmissionRate", kwGravity: "Gravity", kwLongitude: "Longitude",
	kwLatitude: "Latitude", kwParticle: "Particle", kwLifeSpan: "LifeSpan",
	kwInitVelocity: "InitVelocity", kwLineEmitter: "LineEmitter", kwModelSpace: "ModelSpace",
	kwXYQuad: "XYQuad", kwSpeed: "Speed", kwVariation: "Variation", kwSquirt: "Squirt",
	kwWidth: "Width", kwLength: "Length", kwRows: "Rows", kwColumns: "Columns", kwHead: "Head",
	kwTail: "Tail", kwBoth: "Both", kwTailLength: "TailLength", kwTime: "Time",
	kwSegmentColor: "SegmentColor", kwParticleScaling: "ParticleScaling",
	kwLifeSpanUVAnim: "LifeSpanUVAnim", kwDecayUVAnim: "DecayUVAnim", kwTailUVAnim: "TailUVAnim",
	kwTailDecayUVAnim: "TailDecayUVAnim", kwHeightAbove: "HeightAbove",
	kwHeightBelow: "HeightBelow", kwTextureSlot: "TextureSlot", kwPosition: "Position",
	kwFieldOfView: "FieldOfView", kwFarClip: "FarClip", kwNearClip: "NearClip", kwTarget: "Target",
	kwEventTrack: "EventTrack", kwGlobalSeqId: "GlobalSeqId", kwBox: "Box", kwPlane: "Plane",
	kwSphere: "Sphere", kwCylinder: "Cylinder", kwLinear: "Linear", kwDontInterp: "DontInterp",
	kwHermite: "Hermite", kwBezier: "Bezier", kwInTan: "InTan", kwOutTan: "OutTan",
	kwStatic: "Static",
}

// keywordSlots is the size of keywordTable: a power of two, about three times the keywords.
const keywordSlots = 512

// The table keeps at least half its slots empty, so that every probe ends soon.
const _ = uint(keywordSlots - 2*len(keywordNames))

// keywordLower holds each keyword's lower-case spelling; keywordTable is an open-addressing
// hash table of them, probed with the FNV-1a hash keyword computes while it lowers an
// identifier's case: one pass over the bytes where a map would hash them again.
var keywordLower, keywordTable = func() (lower [len(keywordNames)]string, table [keywordSlots]kw) {
	for k, name := range keywordNames {
		if name == "" {
			continue
		}
		lower[k] = strings.ToLower(name)
		h := fnv1a(lower[k])
		for ; table[h%keywordSlots] != kwUnknown; h++ {
			if lower[table[h%keywordSlots]] == lower[k] {
				panic("mdl: keyword " + name + " spelt twice")
			}
		}
		table[h%keywordSlots] = kw(k)
	}
	return lower, table
}()

// FNV-1a's 32-bit offset basis and prime.
const (
	fnvOffset = 2166136261
	fnvPrime  = 16777619
)

// fnv1a returns the 32-bit FNV-1a hash of s.
func fnv1a(s string) uint32 {
	h := uint32(fnvOffset)
	for i := range len(s) {
		h = (h ^ uint32(s[i])) * fnvPrime
	}
	return h
}

// keyword looks up an identifier, ignoring ASCII case, without allocating.
func keyword(b []byte) kw {
	var buf [24]byte
	if len(b) > len(buf) {
		return kwUnknown
	}
	h := uint32(fnvOffset)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
		h = (h ^ uint32(c)) * fnvPrime
	}
	for ; ; h++ {
		k := keywordTable[h%keywordSlots]
		if k == kwUnknown || keywordLower[k] == string(buf[:len(b)]) {
			return k
		}
	}
}
