/** Configuration plumbing shared by every Updraft service; no dependencies beyond the JDK. */
package dev.updraft.common;
