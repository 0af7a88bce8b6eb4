package io.pgqueue.dashboard;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.function.Function;

import io.pgqueue.testsupport.RealComponents;
import org.openqa.selenium.By;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's headless Chromium driven through Selenium WebDriver and Debian's chromedriver. Without them the
 * test is skipped (or fails, under {@code PGQUEUE_REAL_COMPONENTS_REQUIRED=true}, as in CI).
 */
final class Browser implements AutoCloseable {

    /** Where the dashboard guide's screenshots are copied when {@code -Dpgqueue.screenshots=<dir>} is given. */
    private static final String SCREENSHOTS_PROPERTY = "pgqueue.screenshots";

    private final ChromeDriver driver;

    private final Path profile;

    private final String baseUrl;

    private Browser(ChromeDriver driver, Path profile, String baseUrl) {
        this.driver = driver;
        this.profile = profile;
        this.baseUrl = baseUrl;
    }

    static Browser open(int port) {
        Path chromium = RealComponents.executable("chromium", "chromium", "/usr/bin/chromium");
        Path chromedriver = RealComponents.executable("chromedriver", "chromium-driver", "/usr/bin/chromedriver");
        try {
            Path profile = Files.createTempDirectory("pgqueue-chromium");
            ChromeOptions options = new ChromeOptions();
            options.setBinary(chromium.toFile());
            // the machine's network is closed: no background connections, no sandbox as root
            options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update",
                    "--disable-sync", "--window-size=1440,960", "--user-data-dir=" + profile);
            ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(chromedriver.toFile())
                .usingAnyFreePort()
                .build();
            return new Browser(new ChromeDriver(service, options), profile, "http://localhost:" + port);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    WebDriver driver() {
        return driver;
    }

    /** Signs in through the application's login form and lands on the dashboard. */
    Browser signIn(String user, String password) {
        driver.get(baseUrl + "/pgqueue");
        waitFor(ExpectedConditions.visibilityOfElementLocated(By.name("username"))).sendKeys(user);
        driver.findElement(By.name("password")).sendKeys(password);
        driver.findElement(By.cssSelector("button[type=submit]")).click();
        waitFor(ExpectedConditions.presenceOfElementLocated(By.cssSelector("meta[name=pgqueue-base]")));
        return this;
    }

    /** Opens a page of the dashboard, e.g. {@code #/queues/work}. */
    Browser open(String fragment) {
        String url = baseUrl + "/pgqueue" + fragment;
        if (driver.getCurrentUrl() != null && driver.getCurrentUrl().startsWith(baseUrl + "/pgqueue")) {
            // the page is loaded: change its route as a click on a link would
            driver.executeScript("location.hash = arguments[0]", fragment.substring(fragment.indexOf('#') + 1));
        }
        else {
            driver.get(url);
        }
        return this;
    }

    <T> T waitFor(Function<WebDriver, T> condition) {
        return new WebDriverWait(driver, Duration.ofSeconds(15)).ignoring(StaleElementReferenceException.class)
            .ignoring(NoSuchElementException.class)
            .until(condition);
    }

    /** The text of the element, once it is there. */
    String text(By locator) {
        return waitFor((d) -> d.findElement(locator).getText());
    }

    /** Waits until the element shows this text (pages refresh themselves). */
    void waitForText(By locator, String expected) {
        waitFor((d) -> expected.equals(d.findElement(locator).getText()) ? true : null);
    }

    /** Clicks the element once it is there and clickable. */
    void click(By locator) {
        waitFor((d) -> {
            WebElement element = d.findElement(locator);
            if (!element.isDisplayed() || !element.isEnabled()) {
                return null;
            }
            element.click();
            return true;
        });
    }

    /** Accepts the confirmation dialog an action asks for. */
    void confirm() {
        waitFor(ExpectedConditions.alertIsPresent()).accept();
    }

    List<WebElement> all(By locator) {
        return driver.findElements(locator);
    }

    /**
     * Saves a screenshot under {@code target/screenshots}, and into the directory {@code -Dpgqueue.screenshots}
     * names (the dashboard guide's images), when given.
     */
    Path screenshot(String name) {
        try {
            Path shot = driver.getScreenshotAs(OutputType.FILE).toPath();
            Path saved = Path.of("target", "screenshots", name + ".png");
            Files.createDirectories(saved.getParent());
            Files.copy(shot, saved, StandardCopyOption.REPLACE_EXISTING);
            String readme = System.getProperty(SCREENSHOTS_PROPERTY);
            if (readme != null && !readme.isBlank()) {
                Path target = Path.of(readme, "dashboard-" + name + ".png");
                Files.createDirectories(target.getParent());
                Files.copy(shot, target, StandardCopyOption.REPLACE_EXISTING);
            }
            return saved;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    @Override
    public void close() {
        driver.quit();
        try (var files = Files.walk(profile)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach((file) -> file.toFile().delete());
        }
        catch (IOException ex) {
            // a leftover temporary profile harms nothing
        }
    }
}
