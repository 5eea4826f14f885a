# Links the SNES test ROM with a correct internal header checksum (cmake -P).
#
# The header holds the 16-bit sum of every byte of the ROM and its complement. The two
# fields together always add 2 x $FF to that sum, whatever the checksum is, so the sum of a
# ROM linked with checksum 0 (complement $FFFF) is the sum of the final ROM: link once, add
# up the bytes, link again with the checksum (lorom.cfg's FL_CHECKSUM), and check the result.
#
# Variables: LD65 (the linker), CONFIG (lorom.cfg), OBJECT (the assembled program),
# UNSUMMED (path for the first link), ROM (the output), MAP (ld65's map file).

function(link output checksum)
    execute_process(
        COMMAND ${LD65} -C ${CONFIG} -D FL_CHECKSUM=${checksum} -m ${MAP} -o ${output} ${OBJECT}
        RESULT_VARIABLE failed)
    if(failed)
        message(FATAL_ERROR "ld65 failed linking ${output}")
    endif()
endfunction()

# Sum of the bytes of `file` modulo 2^16, and the header's checksum word (file offset $7FDE).
function(read_sums file sum_var header_var)
    file(READ ${file} hex HEX)
    string(LENGTH "${hex}" digits)
    if(NOT digits EQUAL 65536)
        message(FATAL_ERROR "${file}: expected 32768 bytes, got ${digits} hex digits")
    endif()
    string(REGEX MATCHALL ".." bytes "${hex}")
    set(sum 0)
    foreach(b IN LISTS bytes)
        math(EXPR sum "(${sum} + 0x${b}) & 0xFFFF")
    endforeach()
    string(SUBSTRING "${hex}" 65468 4 field)  # $7FDE * 2: low byte, high byte
    string(SUBSTRING "${field}" 0 2 low)
    string(SUBSTRING "${field}" 2 2 high)
    math(EXPR header "0x${high}${low}")
    set(${sum_var} ${sum} PARENT_SCOPE)
    set(${header_var} ${header} PARENT_SCOPE)
endfunction()

link(${UNSUMMED} 0)
read_sums(${UNSUMMED} sum header)
math(EXPR checksum "${sum}" OUTPUT_FORMAT HEXADECIMAL)
link(${ROM} ${checksum})
read_sums(${ROM} final_sum final_header)
if(NOT final_sum EQUAL sum OR NOT final_header EQUAL sum)
    message(FATAL_ERROR "${ROM}: header checksum ${final_header}, bytes add up to ${final_sum}")
endif()
