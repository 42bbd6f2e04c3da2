package mdl

// kw identifies a keyword; kwUnknown is any other word.
type kw uint16

const (
	kwUnknown kw = iota
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
	kwStatic
)

// keyword looks up an identifier, ignoring ASCII case, without allocating.
func keyword(b []byte) kw {
	var buf [24]byte
	if len(b) > len(buf) {
		return kwUnknown
	}
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	switch string(buf[:len(b)]) {
	case "version":
		return kwVersion
	case "model":
		return kwModel
	case "sequences":
		return kwSequences
	case "globalsequences":
		return kwGlobalSequences
	case "textures":
		return kwTextures
	case "materials":
		return kwMaterials
	case "textureanims":
		return kwTextureAnims
	case "geoset":
		return kwGeoset
	case "geosetanim":
		return kwGeosetAnim
	case "bone":
		return kwBone
	case "light":
		return kwLight
	case "helper":
		return kwHelper
	case "attachment":
		return kwAttachment
	case "pivotpoints":
		return kwPivotPoints
	case "particleemitter":
		return kwParticleEmitter
	case "particleemitter2":
		return kwParticleEmitter2
	case "ribbonemitter":
		return kwRibbonEmitter
	case "camera":
		return kwCamera
	case "eventobject":
		return kwEventObject
	case "collisionshape":
		return kwCollisionShape
	case "formatversion":
		return kwFormatVersion
	case "name":
		return kwName
	case "animationfile":
		return kwAnimationFile
	case "blendtime":
		return kwBlendTime
	case "minimumextent":
		return kwMinimumExtent
	case "maximumextent":
		return kwMaximumExtent
	case "boundsradius":
		return kwBoundsRadius
	case "anim":
		return kwAnim
	case "interval":
		return kwInterval
	case "movespeed":
		return kwMoveSpeed
	case "nonlooping":
		return kwNonLooping
	case "rarity":
		return kwRarity
	case "syncpoint":
		return kwSyncPoint
	case "duration":
		return kwDuration
	case "bitmap":
		return kwBitmap
	case "image":
		return kwImage
	case "replaceableid":
		return kwReplaceableId
	case "wrapwidth":
		return kwWrapWidth
	case "wrapheight":
		return kwWrapHeight
	case "material":
		return kwMaterial
	case "constantcolor":
		return kwConstantColor
	case "sortprimsnearz":
		return kwSortPrimsNearZ
	case "sortprimsfarz":
		return kwSortPrimsFarZ
	case "fullresolution":
		return kwFullResolution
	case "priorityplane":
		return kwPriorityPlane
	case "twosided":
		return kwTwoSided
	case "layer":
		return kwLayer
	case "filtermode":
		return kwFilterMode
	case "none":
		return kwNone
	case "transparent":
		return kwTransparent
	case "blend":
		return kwBlend
	case "additive":
		return kwAdditive
	case "addalpha":
		return kwAddAlpha
	case "modulate":
		return kwModulate
	case "modulate2x":
		return kwModulate2x
	case "alphakey":
		return kwAlphaKey
	case "unshaded":
		return kwUnshaded
	case "sphereenvmap":
		return kwSphereEnvMap
	case "unfogged":
		return kwUnfogged
	case "nodepthtest":
		return kwNoDepthTest
	case "nodepthset":
		return kwNoDepthSet
	case "textureid":
		return kwTextureID
	case "tvertexanimid":
		return kwTVertexAnimId
	case "coordid":
		return kwCoordId
	case "alpha":
		return kwAlpha
	case "tvertexanim":
		return kwTVertexAnim
	case "translation":
		return kwTranslation
	case "rotation":
		return kwRotation
	case "scaling":
		return kwScaling
	case "vertices":
		return kwVertices
	case "normals":
		return kwNormals
	case "tvertices":
		return kwTVertices
	case "vertexgroup":
		return kwVertexGroup
	case "faces":
		return kwFaces
	case "triangles":
		return kwTriangles
	case "groups":
		return kwGroups
	case "matrices":
		return kwMatrices
	case "materialid":
		return kwMaterialID
	case "selectiongroup":
		return kwSelectionGroup
	case "unselectable":
		return kwUnselectable
	case "color":
		return kwColor
	case "dropshadow":
		return kwDropShadow
	case "geosetid":
		return kwGeosetId
	case "objectid":
		return kwObjectId
	case "parent":
		return kwParent
	case "dontinherit":
		return kwDontInherit
	case "billboarded":
		return kwBillboarded
	case "billboardedlockx":
		return kwBillboardedLockX
	case "billboardedlocky":
		return kwBillboardedLockY
	case "billboardedlockz":
		return kwBillboardedLockZ
	case "billboardlockx":
		return kwBillboardLockX
	case "billboardlocky":
		return kwBillboardLockY
	case "billboardlockz":
		return kwBillboardLockZ
	case "cameraanchored":
		return kwCameraAnchored
	case "multiple":
		return kwMultiple
	case "geosetanimid":
		return kwGeosetAnimId
	case "omnidirectional":
		return kwOmnidirectional
	case "directional":
		return kwDirectional
	case "ambient":
		return kwAmbient
	case "attenuationstart":
		return kwAttenuationStart
	case "attenuationend":
		return kwAttenuationEnd
	case "intensity":
		return kwIntensity
	case "ambcolor":
		return kwAmbColor
	case "ambintensity":
		return kwAmbIntensity
	case "visibility":
		return kwVisibility
	case "path":
		return kwPath
	case "attachmentid":
		return kwAttachmentID
	case "emitterusesmdl":
		return kwEmitterUsesMDL
	case "emitterusestga":
		return kwEmitterUsesTGA
	case "emissionrate":
		return kwEmissionRate
	case "gravity":
		return kwGravity
	case "longitude":
		return kwLongitude
	case "latitude":
		return kwLatitude
	case "particle":
		return kwParticle
	case "lifespan":
		return kwLifeSpan
	case "initvelocity":
		return kwInitVelocity
	case "lineemitter":
		return kwLineEmitter
	case "modelspace":
		return kwModelSpace
	case "xyquad":
		return kwXYQuad
	case "speed":
		return kwSpeed
	case "variation":
		return kwVariation
	case "squirt":
		return kwSquirt
	case "width":
		return kwWidth
	case "length":
		return kwLength
	case "rows":
		return kwRows
	case "columns":
		return kwColumns
	case "head":
		return kwHead
	case "tail":
		return kwTail
	case "both":
		return kwBoth
	case "taillength":
		return kwTailLength
	case "time":
		return kwTime
	case "segmentcolor":
		return kwSegmentColor
	case "particlescaling":
		return kwParticleScaling
	case "lifespanuvanim":
		return kwLifeSpanUVAnim
	case "decayuvanim":
		return kwDecayUVAnim
	case "tailuvanim":
		return kwTailUVAnim
	case "taildecayuvanim":
		return kwTailDecayUVAnim
	case "heightabove":
		return kwHeightAbove
	case "heightbelow":
		return kwHeightBelow
	case "textureslot":
		return kwTextureSlot
	case "position":
		return kwPosition
	case "fieldofview":
		return kwFieldOfView
	case "farclip":
		return kwFarClip
	case "nearclip":
		return kwNearClip
	case "target":
		return kwTarget
	case "eventtrack":
		return kwEventTrack
	case "globalseqid":
		return kwGlobalSeqId
	case "box":
		return kwBox
	case "plane":
		return kwPlane
	case "sphere":
		return kwSphere
	case "cylinder":
		return kwCylinder
	case "linear":
		return kwLinear
	case "dontinterp":
		return kwDontInterp
	case "hermite":
		return kwHermite
	case "bezier":
		return kwBezier
	case "intan":
		return kwInTan
	case "outtan":
		return kwOutTan
	case "static":
		return kwStatic
	}
	return kwUnknown
}
