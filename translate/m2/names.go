package m2

import (
	"math/bits"
	"strconv"
)

// animationNames are the names of animation ids 0 to 505, as AnimationData.dbc spells them in
// the clients that write M2 versions up to 272 (the Wrath table; later clients only append).
var animationNames = [...]string{
	"Stand", "Death", "Spell", "Stop", "Walk", "Run", "Dead", "Rise", "StandWound", "CombatWound",
	"CombatCritical", "ShuffleLeft", "ShuffleRight", "Walkbackwards", "Stun", "HandsClosed",
	"AttackUnarmed", "Attack1H", "Attack2H", "Attack2HL", "ParryUnarmed", "Parry1H", "Parry2H",
	"Parry2HL", "ShieldBlock", "ReadyUnarmed", "Ready1H", "Ready2H", "Ready2HL", "ReadyBow", "Dodge",
	"SpellPrecast", "SpellCast", "SpellCastArea", "NPCWelcome", "NPCGoodbye", "Block", "JumpStart",
	"Jump", "JumpEnd", "Fall", "SwimIdle", "Swim", "SwimLeft", "SwimRight", "SwimBackwards",
	"AttackBow", "FireBow", "ReadyRifle", "AttackRifle", "Loot", "ReadySpellDirected",
	"ReadySpellOmni", "SpellCastDirected", "SpellCastOmni", "BattleRoar", "ReadyAbility", "Special1H",
	"Special2H", "ShieldBash", "EmoteTalk", "EmoteEat", "EmoteWork", "EmoteUseStanding",
	"EmoteTalkExclamation", "EmoteTalkQuestion", "EmoteBow", "EmoteWave", "EmoteCheer", "EmoteDance",
	"EmoteLaugh", "EmoteSleep", "EmoteSitGround", "EmoteRude", "EmoteRoar", "EmoteKneel", "EmoteKiss",
	"EmoteCry", "EmoteChicken", "EmoteBeg", "EmoteApplaud", "EmoteShout", "EmoteFlex", "EmoteShy",
	"EmotePoint", "Attack1HPierce", "Attack2HLoosePierce", "AttackOff", "AttackOffPierce", "Sheath",
	"HipSheath", "Mount", "RunRight", "RunLeft", "MountSpecial", "Kick", "SitGroundDown", "SitGround",
	"SitGroundUp", "SleepDown", "Sleep", "SleepUp", "SitChairLow", "SitChairMed", "SitChairHigh",
	"LoadBow", "LoadRifle", "AttackThrown", "ReadyThrown", "HoldBow", "HoldRifle", "HoldThrown",
	"LoadThrown", "EmoteSalute", "KneelStart", "KneelLoop", "KneelEnd", "AttackUnarmedOff",
	"SpecialUnarmed", "StealthWalk", "StealthStand", "Knockdown", "EatingLoop", "UseStandingLoop",
	"ChannelCastDirected", "ChannelCastOmni", "Whirlwind", "Birth", "UseStandingStart",
	"UseStandingEnd", "CreatureSpecial", "Drown", "Drowned", "FishingCast", "FishingLoop", "Fly",
	"EmoteWorkNoSheathe", "EmoteStunNoSheathe", "EmoteUseStandingNoSheathe", "SpellSleepDown",
	"SpellKneelStart", "SpellKneelLoop", "SpellKneelEnd", "Sprint", "InFlight", "Spawn", "Close",
	"Closed", "Open", "Opened", "Destroy", "Destroyed", "Rebuild", "Custom0", "Custom1", "Custom2",
	"Custom3", "Despawn", "Hold", "Decay", "BowPull", "BowRelease", "ShipStart", "ShipMoving",
	"ShipStop", "GroupArrow", "Arrow", "CorpseArrow", "GuideArrow", "Sway", "DruidCatPounce",
	"DruidCatRip", "DruidCatRake", "DruidCatRavage", "DruidCatClaw", "DruidCatCower",
	"DruidBearSwipe", "DruidBearBite", "DruidBearMaul", "DruidBearBash", "DragonTail", "DragonStomp",
	"DragonSpit", "DragonSpitHover", "DragonSpitFly", "EmoteYes", "EmoteNo", "JumpLandRun",
	"LootHold", "LootUp", "StandHigh", "Impact", "LiftOff", "Hover", "SuccubusEntice", "EmoteTrain",
	"EmoteDead", "EmoteDanceOnce", "Deflect", "EmoteEatNoSheathe", "Land", "Submerge", "Submerged",
	"Cannibalize", "ArrowBirth", "GroupArrowBirth", "CorpseArrowBirth", "GuideArrowBirth",
	"EmoteTalkNoSheathe", "EmotePointNoSheathe", "EmoteSaluteNoSheathe", "EmoteDanceSpecial",
	"Mutilate", "CustomSpell01", "CustomSpell02", "CustomSpell03", "CustomSpell04", "CustomSpell05",
	"CustomSpell06", "CustomSpell07", "CustomSpell08", "CustomSpell09", "CustomSpell10", "StealthRun",
	"Emerge", "Cower", "Grab", "GrabClosed", "GrabThrown", "FlyStand", "FlyDeath", "FlySpell",
	"FlyStop", "FlyWalk", "FlyRun", "FlyDead", "FlyRise", "FlyStandWound", "FlyCombatWound",
	"FlyCombatCritical", "FlyShuffleLeft", "FlyShuffleRight", "FlyWalkbackwards", "FlyStun",
	"FlyHandsClosed", "FlyAttackUnarmed", "FlyAttack1H", "FlyAttack2H", "FlyAttack2HL",
	"FlyParryUnarmed", "FlyParry1H", "FlyParry2H", "FlyParry2HL", "FlyShieldBlock", "FlyReadyUnarmed",
	"FlyReady1H", "FlyReady2H", "FlyReady2HL", "FlyReadyBow", "FlyDodge", "FlySpellPrecast",
	"FlySpellCast", "FlySpellCastArea", "FlyNPCWelcome", "FlyNPCGoodbye", "FlyBlock", "FlyJumpStart",
	"FlyJump", "FlyJumpEnd", "FlyFall", "FlySwimIdle", "FlySwim", "FlySwimLeft", "FlySwimRight",
	"FlySwimBackwards", "FlyAttackBow", "FlyFireBow", "FlyReadyRifle", "FlyAttackRifle", "FlyLoot",
	"FlyReadySpellDirected", "FlyReadySpellOmni", "FlySpellCastDirected", "FlySpellCastOmni",
	"FlyBattleRoar", "FlyReadyAbility", "FlySpecial1H", "FlySpecial2H", "FlyShieldBash",
	"FlyEmoteTalk", "FlyEmoteEat", "FlyEmoteWork", "FlyEmoteUseStanding", "FlyEmoteTalkExclamation",
	"FlyEmoteTalkQuestion", "FlyEmoteBow", "FlyEmoteWave", "FlyEmoteCheer", "FlyEmoteDance",
	"FlyEmoteLaugh", "FlyEmoteSleep", "FlyEmoteSitGround", "FlyEmoteRude", "FlyEmoteRoar",
	"FlyEmoteKneel", "FlyEmoteKiss", "FlyEmoteCry", "FlyEmoteChicken", "FlyEmoteBeg",
	"FlyEmoteApplaud", "FlyEmoteShout", "FlyEmoteFlex", "FlyEmoteShy", "FlyEmotePoint",
	"FlyAttack1HPierce", "FlyAttack2HLoosePierce", "FlyAttackOff", "FlyAttackOffPierce", "FlySheath",
	"FlyHipSheath", "FlyMount", "FlyRunRight", "FlyRunLeft", "FlyMountSpecial", "FlyKick",
	"FlySitGroundDown", "FlySitGround", "FlySitGroundUp", "FlySleepDown", "FlySleep", "FlySleepUp",
	"FlySitChairLow", "FlySitChairMed", "FlySitChairHigh", "FlyLoadBow", "FlyLoadRifle",
	"FlyAttackThrown", "FlyReadyThrown", "FlyHoldBow", "FlyHoldRifle", "FlyHoldThrown",
	"FlyLoadThrown", "FlyEmoteSalute", "FlyKneelStart", "FlyKneelLoop", "FlyKneelEnd",
	"FlyAttackUnarmedOff", "FlySpecialUnarmed", "FlyStealthWalk", "FlyStealthStand", "FlyKnockdown",
	"FlyEatingLoop", "FlyUseStandingLoop", "FlyChannelCastDirected", "FlyChannelCastOmni",
	"FlyWhirlwind", "FlyBirth", "FlyUseStandingStart", "FlyUseStandingEnd", "FlyCreatureSpecial",
	"FlyDrown", "FlyDrowned", "FlyFishingCast", "FlyFishingLoop", "FlyFly", "FlyEmoteWorkNoSheathe",
	"FlyEmoteStunNoSheathe", "FlyEmoteUseStandingNoSheathe", "FlySpellSleepDown",
	"FlySpellKneelStart", "FlySpellKneelLoop", "FlySpellKneelEnd", "FlySprint", "FlyInFlight",
	"FlySpawn", "FlyClose", "FlyClosed", "FlyOpen", "FlyOpened", "FlyDestroy", "FlyDestroyed",
	"FlyRebuild", "FlyCustom0", "FlyCustom1", "FlyCustom2", "FlyCustom3", "FlyDespawn", "FlyHold",
	"FlyDecay", "FlyBowPull", "FlyBowRelease", "FlyShipStart", "FlyShipMoving", "FlyShipStop",
	"FlyGroupArrow", "FlyArrow", "FlyCorpseArrow", "FlyGuideArrow", "FlySway", "FlyDruidCatPounce",
	"FlyDruidCatRip", "FlyDruidCatRake", "FlyDruidCatRavage", "FlyDruidCatClaw", "FlyDruidCatCower",
	"FlyDruidBearSwipe", "FlyDruidBearBite", "FlyDruidBearMaul", "FlyDruidBearBash", "FlyDragonTail",
	"FlyDragonStomp", "FlyDragonSpit", "FlyDragonSpitHover", "FlyDragonSpitFly", "FlyEmoteYes",
	"FlyEmoteNo", "FlyJumpLandRun", "FlyLootHold", "FlyLootUp", "FlyStandHigh", "FlyImpact",
	"FlyLiftOff", "FlyHover", "FlySuccubusEntice", "FlyEmoteTrain", "FlyEmoteDead",
	"FlyEmoteDanceOnce", "FlyDeflect", "FlyEmoteEatNoSheathe", "FlyLand", "FlySubmerge",
	"FlySubmerged", "FlyCannibalize", "FlyArrowBirth", "FlyGroupArrowBirth", "FlyCorpseArrowBirth",
	"FlyGuideArrowBirth", "FlyEmoteTalkNoSheathe", "FlyEmotePointNoSheathe",
	"FlyEmoteSaluteNoSheathe", "FlyEmoteDanceSpecial", "FlyMutilate", "FlyCustomSpell01",
	"FlyCustomSpell02", "FlyCustomSpell03", "FlyCustomSpell04", "FlyCustomSpell05",
	"FlyCustomSpell06", "FlyCustomSpell07", "FlyCustomSpell08", "FlyCustomSpell09",
	"FlyCustomSpell10", "FlyStealthRun", "FlyEmerge", "FlyCower", "FlyGrab", "FlyGrabClosed",
	"FlyGrabThrown", "ToFly", "ToHover", "ToGround", "FlyToFly", "FlyToHover", "FlyToGround",
	"Settle", "FlySettle", "DeathStart", "DeathLoop", "DeathEnd", "FlyDeathStart", "FlyDeathLoop",
	"FlyDeathEnd", "DeathEndHold", "FlyDeathEndHold", "Strangulate", "FlyStrangulate", "ReadyJoust",
	"LoadJoust", "HoldJoust", "FlyReadyJoust", "FlyLoadJoust", "FlyHoldJoust", "AttackJoust",
	"FlyAttackJoust", "ReclinedMount", "FlyReclinedMount", "ToAltered", "FromAltered", "FlyToAltered",
	"FlyFromAltered", "InStocks", "FlyInStocks", "VehicleGrab", "VehicleThrow", "FlyVehicleGrab",
	"FlyVehicleThrow", "ToAlteredPostSwap", "FromAlteredPostSwap", "FlyToAlteredPostSwap",
	"FlyFromAlteredPostSwap", "ReclinedMountPassenger", "FlyReclinedMountPassenger", "Carry2H",
	"Carried2H", "FlyCarry2H", "FlyCarried2H",
}

// AnimationName returns the name of animation id, or the id itself in decimal when no name is
// known.
func AnimationName(id uint16) string {
	if int(id) < len(animationNames) {
		return animationNames[id]
	}
	return strconv.Itoa(int(id))
}

// keyBoneNames name the key bones (M2Bone.keyBoneId) the client looks up by role.
var keyBoneNames = [...]string{
	"ArmL", "ArmR", "ShoulderL", "ShoulderR", "SpineLow", "Waist", "Head", "Jaw",
	"IndexFingerR", "MiddleFingerR", "PinkyFingerR", "RingFingerR", "ThumbR",
	"IndexFingerL", "MiddleFingerL", "PinkyFingerL", "RingFingerL", "ThumbL",
	"BTH", "CSR", "CSL", "Breath", "Name", "NameMount", "CHD", "CCH", "Root",
	"Wheel1", "Wheel2", "Wheel3", "Wheel4", "Wheel5", "Wheel6", "Wheel7", "Wheel8",
}

// boneName names bone i: "Bone<i>", with the key bone role appended when it has one.
func boneName(i int, keyBone int32) string {
	if keyBone >= 0 && int(keyBone) < len(keyBoneNames) {
		return "Bone" + strconv.Itoa(i) + "_" + keyBoneNames[keyBone]
	}
	return "Bone" + strconv.Itoa(i)
}

// attachmentNames name the attachment ids (M2Attachment.id).
var attachmentNames = [...]string{
	"Shield", "HandRight", "HandLeft", "ElbowRight", "ElbowLeft", "ShoulderRight", "ShoulderLeft",
	"KneeRight", "KneeLeft", "HipRight", "HipLeft", "Helm", "Back", "ShoulderFlapRight",
	"ShoulderFlapLeft", "ChestBloodFront", "ChestBloodBack", "Breath", "PlayerName", "Base",
	"Head", "SpellLeftHand", "SpellRightHand", "Special1", "Special2", "Special3",
	"SheathMainHand", "SheathOffHand", "SheathShield", "PlayerNameMounted", "LargeWeaponLeft",
	"LargeWeaponRight", "HipWeaponLeft", "HipWeaponRight", "Chest", "HandArrow", "Bullet",
	"SpellHandOmni", "SpellHandDirected", "VehicleSeat1", "VehicleSeat2", "VehicleSeat3",
	"VehicleSeat4", "VehicleSeat5", "VehicleSeat6", "VehicleSeat7", "VehicleSeat8", "LeftFoot",
	"RightFoot", "ShieldNoGlove", "SpineLow", "AlteredShoulderR", "AlteredShoulderL",
}

// attachmentName names an attachment id.
func attachmentName(id uint32) string {
	if int(id) < len(attachmentNames) {
		return attachmentNames[id]
	}
	return "Attachment" + strconv.Itoa(int(id))
}

// textureTypeNames name the texture types (M2Texture.type): 0 is a file named in the model,
// the others are slots the client fills at run time.
var textureTypeNames = [...]string{
	"File", "CharacterSkin", "ObjectSkin", "WeaponBlade", "WeaponHandle", "Environment",
	"CharacterHair", "CharacterFacialHair", "SkinExtra", "UISkin", "TaurenMane",
	"CreatureSkin1", "CreatureSkin2", "CreatureSkin3", "ItemIcon", "GuildBackgroundColor",
	"GuildEmblemColor", "GuildBorderColor", "GuildEmblem",
}

// TextureTypeName names a texture type.
func TextureTypeName(t uint32) string {
	if int(t) < len(textureTypeNames) {
		return textureTypeNames[t]
	}
	return "Type" + strconv.Itoa(int(t))
}

// blendNames name the material blend modes (M2Material.blendingMode).
var blendNames = [...]string{"Opaque", "AlphaKey", "Alpha", "NoAlphaAdd", "Add", "Mod", "Mod2x", "BlendAdd"}

func blendName(b uint16) string {
	if int(b) < len(blendNames) {
		return blendNames[b]
	}
	return "Blend" + strconv.Itoa(int(b))
}

// flagNames lists the names of the bits set in f, "0x…" for bits without a name.
func flagNames(f uint32, names map[uint32]string) []string {
	out := make([]string, 0, bits.OnesCount32(f))
	for ; f != 0; f &= f - 1 {
		bit := f & -f // the lowest bit set
		if n, ok := names[bit]; ok {
			out = append(out, n)
		} else {
			out = append(out, "0x"+strconv.FormatUint(uint64(bit), 16))
		}
	}
	return out
}

// noFlags is the extras value of an empty flag list, boxed once: most bones and sequences have
// no flags, and boxing a slice into an interface allocates.
var noFlags any = []string{}

// flagsValue is flagNames(f, names) as an extras value.
func flagsValue(f uint32, names map[uint32]string) any {
	if f == 0 {
		return noFlags
	}
	return flagNames(f, names)
}

var (
	modelFlagNames = map[uint32]string{0x1: "TiltX", 0x2: "TiltY", 0x8: "TextureCombinerCombos"}
	boneFlagNames  = map[uint32]string{
		0x1: "IgnoreParentTranslate", 0x2: "IgnoreParentScale", 0x4: "IgnoreParentRotation",
		0x8: "SphericalBillboard", 0x10: "CylindricalBillboardLockX",
		0x20: "CylindricalBillboardLockY", 0x40: "CylindricalBillboardLockZ",
		0x200: "Transformed", 0x400: "KinematicBone", 0x1000: "HelmetAnimScaled",
	}
	sequenceFlagNames = map[uint32]string{
		0x1: "LowPriority", 0x20: "KeysInModel", 0x40: "Alias", 0x80: "Blended",
		0x100: "StoredInModel", 0x800: "BlendedTransition",
	}
	renderFlagNames = map[uint32]string{
		0x1: "Unlit", 0x2: "Unfogged", 0x4: "TwoSided", 0x8: "DepthTestOff", 0x10: "DepthWriteOff",
	}
	textureFlagNames = map[uint32]string{0x1: "WrapX", 0x2: "WrapY"}
)
