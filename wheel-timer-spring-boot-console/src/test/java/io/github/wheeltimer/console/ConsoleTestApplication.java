package io.github.wheeltimer.console;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;

/**
 * An application with the starter, Spring MVC, Actuator and the console, and nothing else.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
class ConsoleTestApplication {

}
