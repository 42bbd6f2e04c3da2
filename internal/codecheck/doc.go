// Package codecheck holds no code: its tests hold the module's own source to rules a compiler
// does not check.
package codecheck
