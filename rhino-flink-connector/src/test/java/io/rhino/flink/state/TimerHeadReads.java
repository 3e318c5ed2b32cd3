/*
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package io.rhino.flink.state;

import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.Configuration;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;

/**
 * Counts, from what {@link RocksDbTimerQueueFactory} logs at DEBUG, the timer queues it created
 * with their heads read by one iterator and the key groups whose first timer it sought in RocksDB
 * for them, while it is open.
 */
final class TimerHeadReads implements AutoCloseable {

    private static final String LOGGER = RocksDbTimerQueueFactory.class.getName();
    private static final Pattern READ =
            Pattern.compile(
                    "^Read the heads of timer queue .* \\(\\d+ shipped, (\\d+) sought in RocksDB\\)$");

    private final LongAdder queues = new LongAdder();
    private final LongAdder sought = new LongAdder();
    private final LoggerContext context = (LoggerContext) LogManager.getContext(false);
    private final AbstractAppender appender;

    private TimerHeadReads() {
        appender =
                new AbstractAppender("timer-head-reads", null, null, true, new Property[0]) {
                    @Override
                    public void append(LogEvent event) {
                        Matcher read = READ.matcher(event.getMessage().getFormattedMessage());
                        if (read.matches()) {
                            queues.increment();
                            sought.add(Long.parseLong(read.group(1)));
                        }
                    }
                };
        appender.start();
        Configuration configuration = context.getConfiguration();
        // not additive: the DEBUG lines go to this count only, not to the console
        LoggerConfig logger = new LoggerConfig(LOGGER, Level.DEBUG, false);
        logger.addAppender(appender, Level.DEBUG, null);
        configuration.addLogger(LOGGER, logger);
        context.updateLoggers();
    }

    /** Starts counting. */
    static TimerHeadReads count() {
        return new TimerHeadReads();
    }

    /** Queues created with their heads read by one iterator. */
    long queues() {
        return queues.sum();
    }

    /** Key groups whose first timer those creations sought in RocksDB. */
    long keyGroupsSought() {
        return sought.sum();
    }

    @Override
    public void close() {
        context.getConfiguration().removeLogger(LOGGER);
        context.updateLoggers();
        appender.stop();
    }
}
