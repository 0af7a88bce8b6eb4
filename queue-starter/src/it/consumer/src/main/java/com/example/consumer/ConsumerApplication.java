package com.example.consumer;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import io.pgqueue.annotation.QueueListener;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Component;

@SpringBootApplication
public class ConsumerApplication {

    public static void main(String[] args) {
        SpringApplication.run(ConsumerApplication.class, args);
    }

    record Greeting(String text) {
    }

    @Component
    static class Greetings {

        final List<String> received = new CopyOnWriteArrayList<>();

        @QueueListener(queue = "greetings")
        void handle(Greeting greeting) {
            received.add(greeting.text());
        }
    }
}
