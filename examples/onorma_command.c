/* ONORMA (Audiffren & Kadri, Algorithm 1; docs/paper-spec.md section 5.1) in C, certified by
 *
 *     cc -O2 -o onorma_command examples/onorma_command.c -lm
 *     ovk-check conform --command ./onorma_command --algorithms onorma --level quick
 *
 * through the protocol ovk-conform-1 (docs/conformance.md): argv[1] is the request JSON, argv[2] the result
 * file to write. Its scope, the answer to the describe request: separable Gaussian kernels
 * K(x, z) = exp(-|x - z|^2 / mu) B, the squared loss, no truncation or a fixed window; the oracle sends no
 * other case. Inputs arrive as float.hex strings, which strtod parses exactly; predictions leave as "%a" hex
 * floats, exact too.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --- a minimal JSON reader: enough for the request files ------------------------------------------ */
typedef struct Json {
    char type;                  /* 'o' object, 'a' array, 's' string, 'n' number, 'l' literal */
    char *text;                 /* string contents or number/literal text */
    struct Json **items;        /* array items or object values */
    char **keys;                /* object keys */
    int count;
} Json;

static const char *cursor;

static void skip(void) { while (*cursor == ' ' || *cursor == '\n' || *cursor == '\r' || *cursor == '\t') cursor++; }

static char *parse_string(void) {
    const char *start = ++cursor;                 /* no escapes occur in the request files */
    while (*cursor != '"') cursor++;
    char *text = strndup(start, (size_t)(cursor - start));
    cursor++;
    return text;
}

static Json *parse(void) {
    Json *value = calloc(1, sizeof(Json));
    skip();
    if (*cursor == '{' || *cursor == '[') {
        char close = *cursor == '{' ? '}' : ']';
        value->type = *cursor == '{' ? 'o' : 'a';
        cursor++;
        skip();
        while (*cursor != close) {
            value->items = realloc(value->items, sizeof(Json *) * (size_t)(value->count + 1));
            if (value->type == 'o') {
                value->keys = realloc(value->keys, sizeof(char *) * (size_t)(value->count + 1));
                skip();
                value->keys[value->count] = parse_string();
                skip();
                cursor++;                         /* ':' */
            }
            value->items[value->count++] = parse();
            skip();
            if (*cursor == ',') cursor++;
            skip();
        }
        cursor++;
    } else if (*cursor == '"') {
        value->type = 's';
        value->text = parse_string();
    } else {
        const char *start = cursor;
        while (*cursor && !strchr(",]} \n\r\t", *cursor)) cursor++;
        value->type = strchr("-0123456789", *start) ? 'n' : 'l';
        value->text = strndup(start, (size_t)(cursor - start));
    }
    return value;
}

static Json *member(const Json *object, const char *key) {
    for (int i = 0; object && object->type == 'o' && i < object->count; i++)
        if (strcmp(object->keys[i], key) == 0) return object->items[i];
    return NULL;
}

static double number(const Json *value) { return strtod(value->text, NULL); }   /* hex strings too */

/* --- ONORMA, spec 5.1: predict, step, shrink, truncate -------------------------------------------- */
static void onorma(int n, int p, int d, const double *X, const double *Y, double mu, const double *B,
                   double lam, double eta, int window, double *predictions) {
    double *alpha = calloc((size_t)(n * d), sizeof(double)), *sum = calloc((size_t)d, sizeof(double));
    int lo = 0;
    for (int t = 0; t < n; t++) {
        for (int e = 0; e < d; e++) sum[e] = 0.0;
        for (int i = lo; i < t; i++) {            /* sum_i k(x_t, x_i) alpha_i over the kept terms */
            double distance = 0.0;
            for (int k = 0; k < p; k++) {
                double difference = X[t * p + k] - X[i * p + k];
                distance += difference * difference;
            }
            double kernel = exp(-distance / mu);
            for (int e = 0; e < d; e++) sum[e] += kernel * alpha[i * d + e];
        }
        for (int e = 0; e < d; e++) {             /* f_{t-1}(x_t) = B sum */
            double value = 0.0;
            for (int f = 0; f < d; f++) value += B[e * d + f] * sum[f];
            predictions[t * d + e] = value;
        }
        double eta_t = eta / sqrt((double)(t + 1));
        for (int i = lo; i < t; i++)
            for (int e = 0; e < d; e++) alpha[i * d + e] *= 1.0 - eta_t * lam;
        for (int e = 0; e < d; e++) alpha[t * d + e] = -eta_t * (predictions[t * d + e] - Y[t * d + e]);
        if (window > 0 && t + 1 - window > lo) lo = t + 1 - window;
    }
    free(alpha);
    free(sum);
}

static double *matrix(const Json *rows, int *n, int *columns) {
    *n = rows->count;
    *columns = *n ? rows->items[0]->count : 0;
    double *values = malloc(sizeof(double) * (size_t)(*n * *columns + 1));
    for (int i = 0; i < *n; i++)
        for (int j = 0; j < *columns; j++) values[i * *columns + j] = number(rows->items[i]->items[j]);
    return values;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s REQUEST.json RESULT.json\n", argv[0]);
        return 2;
    }
    FILE *file = fopen(argv[1], "rb");
    if (!file) { perror(argv[1]); return 1; }
    fseek(file, 0, SEEK_END);
    long size = ftell(file);
    rewind(file);
    char *text = malloc((size_t)size + 1);
    text[fread(text, 1, (size_t)size, file)] = '\0';
    fclose(file);
    cursor = text;
    Json *request = parse();

    FILE *out = fopen(argv[2], "w");
    if (!out) { perror(argv[2]); return 1; }
    if (member(request, "describe")) {            /* asked once, before any case: the scope offered */
        fprintf(out, "{\"scope\": {\"algorithms\": {\"onorma\": {\"kernels\": [\"gaussian_separable\"], "
                     "\"losses\": [\"squared\"], \"truncations\": [\"none\", \"window\"]}}}}\n");
        fclose(out);
        return 0;
    }
    /* the oracle probes what an engine offers beyond its scope: anything else than ONORMA, a separable Gaussian
       kernel, the squared loss, no window or a fixed one is refused */
    Json *arguments = member(request, "arguments"), *kernel = member(arguments, "kernel");
    Json *truncation = member(arguments, "truncation"), *algorithm = member(request, "algorithm");
    Json *kernel_type = member(kernel, "type"), *loss_type = member(member(arguments, "loss"), "type");
    Json *truncation_type = member(truncation, "type");
    if (!algorithm || strcmp(algorithm->text, "onorma") || !kernel_type || strcmp(kernel_type->text, "gaussian_separable")
        || !loss_type || strcmp(loss_type->text, "squared") || (truncation && truncation->type == 'o'
        && (!truncation_type || strcmp(truncation_type->text, "window")))) {
        fprintf(out, "{\"unsupported\": \"ONORMA with separable Gaussian kernels, the squared loss and fixed windows "
                     "only\"}\n");
        fclose(out);
        return 0;
    }
    int n, p, n_y, d, d_b, d_b2;
    double *X = matrix(member(member(request, "inputs"), "X"), &n, &p);
    double *Y = matrix(member(member(request, "inputs"), "Y"), &n_y, &d);
    double *B = matrix(member(kernel, "B"), &d_b, &d_b2);
    int window = truncation ? (int)number(member(truncation, "s")) : 0;
    double *predictions = malloc(sizeof(double) * (size_t)(n * d + 1));
    onorma(n, p, d, X, Y, number(member(kernel, "mu")), B, number(member(arguments, "lam")),
           number(member(arguments, "eta")), window, predictions);
    fprintf(out, "{\"fields\": {\"predictions\": [");
    for (int t = 0; t < n; t++) {
        fprintf(out, t ? ", [" : "[");
        for (int e = 0; e < d; e++) fprintf(out, e ? ", \"%a\"" : "\"%a\"", predictions[t * d + e]);
        fprintf(out, "]");
    }
    fprintf(out, "]}}\n");
    fclose(out);
    return 0;
}
