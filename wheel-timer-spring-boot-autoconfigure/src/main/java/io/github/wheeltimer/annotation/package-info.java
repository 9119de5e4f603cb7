/**
 * {@link io.github.wheeltimer.annotation.DelayedExecution @DelayedExecution}: run a bean method's
 * calls later, on a wheel timer. The annotation and its exception handler are what applications
 * use; the rest is how the starter applies it, public for monitoring and for wiring without
 * auto-configuration.
 */
@NullMarked
package io.github.wheeltimer.annotation;

import org.jspecify.annotations.NullMarked;
