package io.github.wheeltimer.durable;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.context.annotation.Import;

/**
 * {@link DurableApp} with every auto-configuration of the class path, as a web application with
 * Actuator has it: for the tests over HTTP, whose context starts once for the whole class.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
@Import(DurableApp.class)
public class DurableWebApp {

}
